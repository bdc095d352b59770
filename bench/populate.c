/* The populate programs' project history (populate.h). */
#include <git2.h>
#include <git2/sys/commit.h>
#include <stdio.h>
#include <stdlib.h>

#include "populate.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "vcs/vcs.h"

int populate_fail(const char *prog, const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, err_msg());
	return 1;
}

/* Commit @i of the project: one file that changes every time. */
static int make_commit(git_repository *repo, unsigned i, const git_oid *parent, git_oid *out)
{
	char text[64], msg[64];
	git_treebuilder *tb = NULL;
	git_signature *sig = NULL;
	git_oid blob, tree;
	int n = snprintf(text, sizeof(text), "iteration %u\n", i);
	int ret = git_blob_create_from_buffer(&blob, repo, text, (size_t)n);

	snprintf(msg, sizeof(msg), "Change %u: tune the inner loop\n", i);
	if (ret == 0)
		ret = git_treebuilder_new(&tb, repo, NULL);
	if (ret == 0)
		ret = git_treebuilder_insert(NULL, tb, "main.c", &blob, GIT_FILEMODE_BLOB);
	if (ret == 0)
		ret = git_treebuilder_write(&tree, tb);
	git_treebuilder_free(tb);
	if (ret == 0)
		ret = git_signature_new(&sig, "Bench", "bench@example.org",
					(git_time_t)1700000000 + (git_time_t)i * 60, 0);
	if (ret == 0)
		ret = git_commit_create_from_ids(out, repo, NULL, sig, sig, NULL, msg, &tree,
						 i ? 1 : 0, (const git_oid *[]){parent});
	git_signature_free(sig);
	return ret;
}

static int make_history(const char *dir, unsigned ncommits, char (*ids)[41])
{
	git_repository *repo = NULL;
	git_reference *ref = NULL;
	git_oid prev, cur;
	int ret = git_repository_init(&repo, dir, 0);

	for (unsigned i = 0; i < ncommits && ret == 0; i++) {
		ret = make_commit(repo, i, &prev, &cur);
		git_oid_tostr(ids[i], 41, &cur);
		prev = cur;
	}
	if (ret == 0)
		ret = git_reference_create(&ref, repo, "refs/heads/master", &cur, 1, NULL);
	if (ret == 0)
		ret = git_repository_set_head(repo, "refs/heads/master");
	git_reference_free(ref);
	git_repository_free(repo);
	return ret < 0 ? vcs_git_error(ret, "cannot make the history") : 0;
}

int populate_history(const char *prog, const char *dir, unsigned ncommits, char (**ids)[41])
{
	char *veles = xasprintf("%s/.veles", dir);
	int ret = 0;

	*ids = xcalloc(ncommits, sizeof(**ids));
	if (mkdir_p(veles) < 0)
		ret = populate_fail(prog, dir);
	else if (make_history(dir, ncommits, *ids) < 0)
		ret = populate_fail(prog, "history");
	free(veles);
	return ret;
}
