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
#include "util/envp.h"
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

/* The runtime's variables, for the command alone (our environment stays as
 * it is: another thread of the front end may be reading it). */
static char **runtime_env(const struct trace_state *st)
{
	char **env = xcalloc(5, sizeof(*env));
	size_t k = 0;

	env[k++] = collect_preload_var(st->runtime);
	env[k++] = xasprintf("VELES_TRACE_DIR=%s", st->dir);
	env[k++] = xasprintf("VELES_TRACE_MODE=%s", st->o.aggregate ? "aggregate" : "records");
	if (st->size_env)
		env[k++] = xasprintf("VELES_TRACE_SIZE=%s", st->size_env);
	return env;
}

int trace_run_instrumented(struct collect_ctx *c, struct trace_state *st)
{
	char **env = runtime_env(st);
	struct spawn_opts so;
	int ret;

	collect_spawn_opts(c, &so);
	so.env = env;
	ret = spawn_run(c->argv, &so, &st->run);
	envp_free(env);
	if (ret < 0)
		return ret;
	c->last_status = st->run.status;
	return 0;
}
