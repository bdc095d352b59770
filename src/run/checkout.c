/* A version checked out in a temporary worktree and built (run.h). */
#include "vcs/git_lazy.h"
#include <stdlib.h>
#include <string.h>

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

static int build_in(const struct run_checkout *co, const struct run_build *b)
{
	int ret = 0;

	for (size_t i = 0; ret == 0 && i < b->n; i++)
		ret = spawn_shell(b->cmds[i], b->what, b->quiet ? SPAWN_SUPPRESS : SPAWN_INHERIT,
				  co->root);
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
	int ret = run_checkout_open(repo, project_root, rev_id, build, &co), rm;

	if (ret < 0)
		return ret;
	ret = fn(&co, arg);
	/* A Ctrl-C must not leave the worktree behind: clean up first. */
	rm = run_checkout_close(repo, &co);
	return ret ? ret : rm;
}
