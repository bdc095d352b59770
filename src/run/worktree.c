/*
 * Temporary git worktrees, so a matrix runs on another version without
 * touching the user's working tree. libgit2 creates a worktree on a
 * branch; we make a throw-away branch at the version, detach the new
 * worktree's HEAD (as `git worktree add --detach` leaves it) and delete the
 * branch at once.
 */
#include "vcs/git_lazy.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/run.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "vcs/vcs.h"

/* Checks out the worktree's HEAD at @oid, detached, and drops @branch. */
static int detach(const char *path, const git_oid *oid, git_reference *branch)
{
	git_repository *wt = NULL;
	int ret = git_repository_open(&wt, path);

	if (ret == 0)
		ret = git_repository_set_head_detached(wt, oid);
	if (ret == 0)
		ret = git_branch_delete(branch);
	git_repository_free(wt);
	return ret < 0 ? vcs_git_error(ret, "cannot detach the temporary worktree") : 0;
}

int run_worktree_add(struct git_repository *repo, const char *rev_id, char **dir, char **name)
{
	char tmpl[] = "/tmp/veles-run-XXXXXX";
	git_worktree_add_options opts;
	git_reference *branch = NULL;
	git_worktree *wt = NULL;
	git_commit *commit = NULL;
	git_oid oid;
	char *path;
	int ret;

	git_worktree_add_options_init(&opts, GIT_WORKTREE_ADD_OPTIONS_VERSION);
	if (!mkdtemp(tmpl))
		return err_set(ERR_IO, "cannot make a temporary directory: %s", strerror(errno));
	*name = xstrdup(strrchr(tmpl, '/') + 1);
	path = xasprintf("%s/tree", tmpl);
	ret = git_oid_fromstr(&oid, rev_id);
	if (ret == 0)
		ret = git_commit_lookup(&commit, repo, &oid);
	if (ret == 0)
		ret = git_branch_create(&branch, repo, *name, commit, 0);
	opts.ref = branch;
	if (ret == 0)
		ret = git_worktree_add(&wt, repo, *name, path, &opts);
	if (ret < 0)
		ret = vcs_git_error(ret, "cannot make a temporary worktree");
	else
		ret = detach(path, &oid, branch);
	git_worktree_free(wt);
	git_commit_free(commit);
	git_reference_free(branch);
	if (ret < 0) {
		run_worktree_remove(repo, path, *name);
		free(path);
		free(*name);
		*name = NULL;
		return ret;
	}
	*dir = path;
	return 0;
}

int run_worktree_remove(struct git_repository *repo, const char *dir, const char *name)
{
	git_worktree_prune_options opts;
	git_worktree *wt = NULL;
	git_reference *branch = NULL;
	char *parent = xstrdup(dir);
	char *slash = strrchr(parent, '/');
	int ret = 0;

	git_worktree_prune_options_init(&opts, GIT_WORKTREE_PRUNE_OPTIONS_VERSION);
	opts.flags = GIT_WORKTREE_PRUNE_VALID | GIT_WORKTREE_PRUNE_LOCKED |
		     GIT_WORKTREE_PRUNE_WORKING_TREE;
	if (git_worktree_lookup(&wt, repo, name) == 0) {
		ret = git_worktree_prune(wt, &opts);
		git_worktree_free(wt);
	}
	/* Left behind when adding failed half-way. */
	if (git_branch_lookup(&branch, repo, name, GIT_BRANCH_LOCAL) == 0) {
		git_branch_delete(branch);
		git_reference_free(branch);
	}
	if (slash)
		*slash = '\0';
	if (slash && strncmp(parent, "/tmp/veles-run-", 15) == 0)
		rm_rf(parent);
	free(parent);
	return ret < 0 ? vcs_git_error(ret, "cannot remove the temporary worktree") : 0;
}
