/* External collectors (external.h). */
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "collect/external.h"
#include "util/common.h"
#include "util/error.h"
#include "util/spawn.h"
#include "util/strmap.h"

int collect_external_find(const char *name, char **path)
{
	char *prog = xasprintf("veles-collect-%s", name);
	int ret = strchr(name, '/') ? ERR_NOTFOUND : spawn_which(NULL, prog, path);

	if (ret < 0)
		ret = err_set(ERR_NOTFOUND, "unknown collector '%s' (and no %s on PATH)", name,
			      prog);
	/* It runs in the project: a relative PATH entry names it from here. */
	if (ret == 0 && **path != '/') {
		char *abs = realpath(*path, NULL);

		free(*path);
		*path = abs;
		if (!abs)
			ret = err_set(ERR_NOTFOUND, "%s: cannot resolve it", prog);
	}
	free(prog);
	return ret;
}

static bool is_profile(const char *name)
{
	size_t n = strlen(name);

	return n > 5 && strcmp(name + n - 5, ".perf") == 0;
}

/* The .perf files in @dir, as a set. */
static void list_profiles(const char *dir, struct strmap *set)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (is_profile(e->d_name))
			strmap_intern(set, e->d_name, NULL);
	if (d)
		closedir(d);
}

/* The one .perf file in @dir that @before lacks, as a path, or NULL. */
static char *new_profile(const char *dir, const struct strmap *before)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *found = NULL;
	size_t n = 0;

	while (d && (e = readdir(d)))
		if (is_profile(e->d_name) && strmap_get(before, e->d_name) == SIZE_MAX && n++ == 0)
			found = xasprintf("%s/%s", dir, e->d_name);
	if (d)
		closedir(d);
	if (n > 1) {
		free(found);
		found = NULL;
	}
	return found;
}

static char **command_of(const struct collect_external *x)
{
	size_t n = 0;
	char **argv;

	while (x->argv && x->argv[n])
		n++;
	argv = xcalloc(n + 2, sizeof(*argv));
	argv[0] = (char *)x->program;
	for (size_t i = 0; i < n; i++)
		argv[i + 1] = x->argv[i];
	return argv;
}

int collect_external_run(const struct collect_external *x, char **written)
{
	char **argv, *env[4] = {NULL};
	struct strmap before = {0};
	struct spawn_result r;
	struct spawn_opts o = {.output = SPAWN_INHERIT, .cwd = x->project_root, .env = env};
	int ret;

	if (written)
		*written = NULL;
	env[0] = xasprintf("VELES_PROJECT_ROOT=%s", x->project_root);
	env[1] = xasprintf("VELES_JOBS_DIR=%s", x->jobs_dir);
	/* No version yet: nothing inherited stands for one. */
	env[2] = x->origin ? xasprintf("VELES_ORIGIN=%s", x->origin) : xstrdup("VELES_ORIGIN");
	argv = command_of(x);
	list_profiles(x->jobs_dir, &before);
	ret = spawn_run(argv, &o, &r);
	if (ret == 0 && spawn_interrupted())
		ret = err_set(ERR_INTERRUPTED, "veles-collect-%s: interrupted", x->name);
	else if (ret == 0 && !(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0))
		ret = err_set(ERR_CHILD, "veles-collect-%s exited with %s %d", x->name,
			      WIFEXITED(r.status) ? "status" : "signal",
			      WIFEXITED(r.status) ? WEXITSTATUS(r.status) : WTERMSIG(r.status));
	if (ret == 0 && written)
		*written = new_profile(x->jobs_dir, &before);
	strmap_free(&before);
	for (size_t i = 0; i < ARRAY_SIZE(env); i++)
		free(env[i]);
	free(argv);
	return ret;
}
