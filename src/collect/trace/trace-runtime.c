/*
 * The instrumented mode's runtime: where libveles-trace.so is, and the
 * command's run with it preloaded, told through the environment where to
 * write (docs/trace-format.md).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/collector.h"
#include "collect/trace/trace-state.h"
#include "util/common.h"
#include "util/fsutil.h"

static char *existing(char *path)
{
	if (path && access(path, R_OK) == 0)
		return path;
	free(path);
	return NULL;
}

/* A veles (or libveles) run from its build tree uses the runtime built
 * beside it. */
static bool in_build_tree(void)
{
	char *exe = self_object_path();
	size_t root = strlen(VELES_BUILD_ROOT);
	bool in = exe && strncmp(exe, VELES_BUILD_ROOT, root) == 0 && exe[root] == '/';

	free(exe);
	return in;
}

char *trace_runtime_path(void)
{
	const char *env = getenv("VELES_TRACE_LIB");
	char *path;

	if (env && *env)
		return existing(xstrdup(env));
	if (in_build_tree())
		return existing(xstrdup(VELES_BUILD_ROOT "/runtime/libveles-trace.so"));
	/* libveles.so is installed beside it, also when staged elsewhere. */
	path = existing(self_object_relative("libveles-trace.so"));
	return path ? path : existing(xstrdup(VELES_RUNTIME_INSTALLED));
}

/* The runtime is preloaded ahead of whatever the user preloads already. */
static void set_env(const struct trace_state *st, char **saved_preload)
{
	const char *old = getenv("LD_PRELOAD");
	char *preload = old && *old ? xasprintf("%s:%s", st->runtime, old) : xstrdup(st->runtime);

	*saved_preload = old ? xstrdup(old) : NULL;
	setenv("LD_PRELOAD", preload, 1);
	setenv("VELES_TRACE_DIR", st->dir, 1);
	setenv("VELES_TRACE_MODE", st->o.aggregate ? "aggregate" : "records", 1);
	if (st->size_env)
		setenv("VELES_TRACE_SIZE", st->size_env, 1);
	free(preload);
}

static void restore_env(char *saved_preload)
{
	if (saved_preload)
		setenv("LD_PRELOAD", saved_preload, 1);
	else
		unsetenv("LD_PRELOAD");
	unsetenv("VELES_TRACE_DIR");
	unsetenv("VELES_TRACE_MODE");
	unsetenv("VELES_TRACE_SIZE");
	free(saved_preload);
}

int trace_run_instrumented(struct collect_ctx *c, struct trace_state *st)
{
	struct spawn_opts so;
	char *saved;
	int ret;

	collect_spawn_opts(c, &so);
	set_env(st, &saved);
	ret = spawn_run(c->argv, &so, &st->run);
	restore_env(saved);
	if (ret < 0)
		return ret;
	c->last_status = st->run.status;
	return 0;
}
