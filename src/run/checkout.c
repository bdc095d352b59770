/* A version checked out in a temporary worktree and built (run.h). */
#include "vcs/git_lazy.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/run.h"
#include "util/common.h"
#include "util/spawn.h"

/* Where @project_root lies in a checkout at @tree. */
static char *root_in(struct git_repository *repo, const char *project_root, const char *tree)
{
	const char *wd = git_repository_workdir(repo);
	size_t len = wd ? strlen(wd) : 0;

	if (len && wd[len - 1] == '/')
		len--;
	if (wd && strncmp(project_root, wd, len) == 0 && project_root[len] == '/')
		return xasprintf("%s%s", tree, project_root + len);
	return xstrdup(tree);
}

int run_checkout_enter(const struct run_checkout *co)
{
	if (chdir(co->root) < 0)
		return err_set(ERR_IO, "cannot change to %s: %s", co->root, strerror(errno));
	return 0;
}

int run_checkout_leave(const char *home)
{
	if (chdir(home) < 0)
		return err_set(ERR_IO, "cannot change back to %s: %s", home, strerror(errno));
	return 0;
}

static int build_in(const struct run_checkout *co, const struct run_build *b)
{
	char *home = getcwd(NULL, 0);
	int ret = home ? run_checkout_enter(co)
		       : err_set(ERR_IO, "cannot read the current directory: %s", strerror(errno));

	for (size_t i = 0; ret == 0 && i < b->n; i++)
		ret = spawn_shell(b->cmds[i], b->what, b->quiet ? SPAWN_SUPPRESS : SPAWN_INHERIT);
	if (home) {
		int back = run_checkout_leave(home);

		ret = ret ? ret : back;
	}
	free(home);
	return ret;
}

int run_checkout_open(struct git_repository *repo, const char *project_root, const char *rev_id,
		      const struct run_build *build, struct run_checkout *co)
{
	int ret;

	memset(co, 0, sizeof(*co));
	snprintf(co->id, sizeof(co->id), "%s", rev_id);
	ret = run_worktree_add(repo, rev_id, &co->dir, &co->name);
	if (ret < 0)
		return ret;
	co->root = root_in(repo, project_root, co->dir);
	if (build && build->n)
		ret = build_in(co, build);
	if (ret < 0)
		run_checkout_close(repo, co);
	return ret;
}

int run_checkout_close(struct git_repository *repo, struct run_checkout *co)
{
	int ret = co->dir ? run_worktree_remove(repo, co->dir, co->name) : 0;

	free(co->dir);
	free(co->name);
	free(co->root);
	memset(co, 0, sizeof(*co));
	return ret;
}

int run_in_checkout(struct git_repository *repo, const char *project_root, const char *rev_id,
		    const struct run_build *build,
		    int (*fn)(const struct run_checkout *co, void *arg), void *arg)
{
	struct run_checkout co;
	char *home = getcwd(NULL, 0);
	int ret, rm;

	if (!home)
		return err_set(ERR_IO, "cannot read the current directory: %s", strerror(errno));
	ret = run_checkout_open(repo, project_root, rev_id, build, &co);
	if (ret < 0) {
		free(home);
		return ret;
	}
	ret = run_checkout_enter(&co);
	if (ret == 0)
		ret = fn(&co, arg);
	{
		int back = run_checkout_leave(home);

		ret = ret ? ret : back;
	}
	/* A Ctrl-C must not leave the worktree behind: clean up first. */
	rm = run_checkout_close(repo, &co);
	free(home);
	return ret ? ret : rm;
}
