/*
 * veles show PROFILE bounds: the bounds view (src/view/bounds_view.c) reads
 * the sources as the profile measured them: from its origin version in a
 * git project, else from the files as named (from here, then from the
 * project's root).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vcs/git_lazy.h"

#include "cli/cli.h"
#include "cli/show.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "vcs/vcs.h"

/* @path in the tree of version @origin; 0 when found. */
static int read_at_version(git_repository *repo, const char *origin, const char *path,
			   struct buf *out)
{
	git_oid id;
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_object *blob = NULL;
	int ret = -1;

	while (strncmp(path, "./", 2) == 0)
		path += 2;
	if (git_oid_fromstr(&id, origin) == 0 && git_commit_lookup(&commit, repo, &id) == 0 &&
	    git_commit_tree(&tree, commit) == 0 && git_tree_entry_bypath(&e, tree, path) == 0 &&
	    git_object_lookup(&blob, repo, git_tree_entry_id(e), GIT_OBJECT_BLOB) == 0) {
		buf_add(out, git_blob_rawcontent((git_blob *)blob),
			(size_t)git_blob_rawsize((git_blob *)blob));
		ret = 0;
	}
	git_object_free(blob);
	git_tree_entry_free(e);
	git_tree_free(tree);
	git_commit_free(commit);
	return ret;
}

int show_read_source(const char *path, struct buf *out, void *arg)
{
	struct show_sources *s = arg;
	struct cli_ctx *ctx = s->ctx;
	char *at_root;
	int ret;

	if (ctx->vcs && vcs_kind(ctx->vcs) == VCS_GIT && s->origin && path[0] != '/' &&
	    read_at_version(vcs_store_repo(ctx->vcs), s->origin, path, out) == 0)
		return 0;
	buf_reset(out);
	if (file_read_all(path, out) == 0)
		return 0;
	buf_reset(out);
	if (!ctx->root || path[0] == '/')
		return -1;
	at_root = xasprintf("%s/%s", ctx->root, path);
	ret = file_read_all(at_root, out);
	free(at_root);
	return ret;
}
