/*
 * Temporary git worktrees, so a matrix runs on another version without
 * touching the user's working tree. libgit2 creates a worktree on a
 * branch; we make a throw-away branch at the version, detach the new
 * worktree's HEAD (as `git worktree add --detach` leaves it) and delete the
 * branch at once. The worktree lives in a temporary directory of its own
 * (util/tmpdir.h) that this process owns while it runs there: what a
 * killed veles leaves, run_worktree_sweep() removes.
 */
#include "vcs/git_lazy.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/run.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "util/tmpdir.h"
#include "vcs/vcs.h"

#define RUN_PREFIX "veles-run-"

/* The directories of the worktrees this process made, until removed. */
static struct tmpdir *mine;
static size_t nmine, mine_cap;
/* Whether this process swept what killed ones left (once is enough). */
static bool swept;

static const char *slash_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

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

/* Forgets (and removes) the directory of ours that holds @dir. */
static bool drop_mine(const char *dir)
{
	for (size_t i = 0; i < nmine; i++) {
		size_t len = strlen(mine[i].path);

		if (strncmp(dir, mine[i].path, len) == 0 && (!dir[len] || dir[len] == '/')) {
			tmpdir_remove(&mine[i]);
			mine[i] = mine[--nmine];
			return true;
		}
	}
	return false;
}

int run_worktree_add(struct git_repository *repo, const char *rev_id, char **dir, char **name)
{
	git_worktree_add_options opts;
	git_reference *branch = NULL;
	git_worktree *wt = NULL;
	git_commit *commit = NULL;
	struct tmpdir t;
	git_oid oid;
	char *path;
	int ret;

	/* run, check --collect-missing, check --remeasure and bisect all
	 * check out here: whichever comes after a killed one clears up. */
	if (!swept)
		run_worktree_sweep(repo);
	if ((ret = tmpdir_make("run", &t)) < 0)
		return ret;
	mine = xgrow(mine, sizeof(*mine), nmine + 1, &mine_cap);
	mine[nmine++] = t;
	git_worktree_add_options_init(&opts, GIT_WORKTREE_ADD_OPTIONS_VERSION);
	*name = xstrdup(strrchr(t.path, '/') + 1);
	path = xasprintf("%s/tree", t.path);
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
	/* A record half made (a veles killed in git_worktree_add) is no
	 * worktree to libgit2, yet keeps the branch checked out; and a lock
	 * on the branch (killed while libgit2 made or deleted it) keeps it
	 * from going. Both are ours: the branch is named for this run. */
	if (strncmp(name, RUN_PREFIX, strlen(RUN_PREFIX)) == 0) {
		const char *common = git_repository_commondir(repo);
		char *record = xasprintf("%sworktrees/%s", common, name);
		char *lock = xasprintf("%srefs/heads/%s.lock", common, name);

		rm_rf(record);
		unlink(lock);
		free(record);
		free(lock);
	}
	/* Left behind when adding failed half-way. */
	if (git_branch_lookup(&branch, repo, name, GIT_BRANCH_LOCAL) == 0) {
		git_branch_delete(branch);
		git_reference_free(branch);
	}
	if (slash)
		*slash = '\0';
	/* Ours, or one a killed veles left (its owner gone): never another's. */
	if (!drop_mine(dir) && slash &&
	    strncmp(slash_base(parent), RUN_PREFIX, strlen(RUN_PREFIX)) == 0 &&
	    !tmpdir_owned(parent))
		rm_rf(parent);
	free(parent);
	return ret < 0 ? vcs_git_error(ret, "cannot remove the temporary worktree") : 0;
}

/* Adds @name to @v unless there. */
static void name_add(char ***v, size_t *n, size_t *cap, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i], name) == 0)
			return;
	*v = xgrow(*v, sizeof(**v), *n + 1, cap);
	(*v)[(*n)++] = xstrdup(name);
}

/* The names of every veles-run-* worktree git has a record of (whole or
 * half made) and of every such branch or branch lock. */
static void run_names(git_repository *repo, char ***v, size_t *n)
{
	char *dir = xasprintf("%sworktrees", git_repository_commondir(repo));
	git_reference_iterator *it = NULL;
	git_reference *ref;
	size_t cap = 0;
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (strncmp(e->d_name, RUN_PREFIX, strlen(RUN_PREFIX)) == 0)
			name_add(v, n, &cap, e->d_name);
	if (d)
		closedir(d);
	free(dir);
	/* A branch's lock alone: killed while libgit2 made the branch. */
	dir = xasprintf("%srefs/heads", git_repository_commondir(repo));
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (strncmp(e->d_name, RUN_PREFIX, strlen(RUN_PREFIX)) == 0 && len > 5 &&
		    strcmp(e->d_name + len - 5, ".lock") == 0) {
			char *name = xstrndup(e->d_name, len - 5);

			name_add(v, n, &cap, name);
			free(name);
		}
	}
	if (d)
		closedir(d);
	free(dir);
	if (git_reference_iterator_glob_new(&it, repo, "refs/heads/" RUN_PREFIX "*") < 0)
		return;
	while (git_reference_next(&ref, it) == 0) {
		name_add(v, n, &cap, git_reference_name(ref) + strlen("refs/heads/"));
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
}

void run_worktree_sweep(struct git_repository *repo)
{
	char **names = NULL;
	size_t n = 0;

	swept = true;
	run_names(repo, &names, &n);
	for (size_t i = 0; i < n; i++) {
		git_worktree *wt = NULL;
		const char *at = NULL;
		char *tree, *parent;

		if (git_worktree_lookup(&wt, repo, names[i]) == 0)
			at = git_worktree_path(wt);
		tree = at ? xstrdup(at) : xasprintf("%s/%s/tree", tmpdir_base(), names[i]);
		git_worktree_free(wt);
		parent = xstrndup(tree, (size_t)(strrchr(tree, '/') - tree));
		/* A run still going owns its directory (or is making it). */
		if (!tmpdir_owned(parent))
			run_worktree_remove(repo, tree, names[i]);
		free(parent);
		free(tree);
		free(names[i]);
	}
	free(names);
	/* A run killed between pruning its worktree and removing the
	 * directory left the directory alone. */
	tmpdir_sweep("run", NULL);
}
