/*
 * Builds the repository bench/log.sh measures: a git project with N
 * commits (made straight into the object database, no work tree churn)
 * and M profiles registered over them with store_add, one ledger commit
 * per version, as `veles add` after each run would leave it.
 *
 * usage: log_populate DIR [COMMITS [PROFILES]]
 */
#include <git2.h>
#include <git2/sys/commit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "vcs/vcs.h"

static const char *const types[] = {"time", "memory", "mixed"};

static int fail(const char *what)
{
	fprintf(stderr, "log_populate: %s: %s\n", what, err_msg());
	return 1;
}

/* Commit @i of the project: one file that changes every time. */
static int make_commit(git_repository *repo, unsigned i, git_oid *parent, git_oid *out)
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
	unsigned i;
	int ret = git_repository_init(&repo, dir, 0);

	for (i = 0; i < ncommits && ret == 0; i++) {
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

/* A small profile; the numbers make each one distinct. */
static char *profile_json(const char *type, unsigned v, unsigned k)
{
	return xasprintf("{\"origin\":\"%u\",\"header\":{\"type\":\"%s\",\"cmd\":\"./prog\","
			 "\"workload\":\"%u\",\"units\":{\"%s\":\"%s\"}},"
			 "\"collector_info\":{\"name\":\"%s\",\"params\":{}},"
			 "\"resources\":[{\"amount\":%u,\"uid\":\"main\"}]}",
			 v, type, k, type, strcmp(type, "memory") ? "us" : "B",
			 strcmp(type, "time") ? "memory" : "time", 1000 + v * 7 + k);
}

static int register_profiles(const char *dir, unsigned ncommits, unsigned nprof, char (*ids)[41])
{
	struct vcs *v = NULL;
	struct store *s = NULL;
	unsigned per = (nprof + ncommits - 1) / ncommits, done = 0, c, k;
	struct store_item *items = xcalloc(per, sizeof(*items));
	char **names = xcalloc(per, sizeof(char *)), **bodies = xcalloc(per, sizeof(char *));
	int ret = vcs_open(dir, false, &v);

	if (ret == 0)
		ret = store_open(v, &s);
	for (c = 0; c < ncommits && done < nprof && ret == 0; c++) {
		unsigned n = nprof - done < per ? nprof - done : per;

		for (k = 0; k < n; k++) {
			const char *type = types[(c + k) % ARRAY_SIZE(types)];

			names[k] = xasprintf("prog-%s-%u-%u.perf", type, c, k);
			bodies[k] = profile_json(type, c, k);
			items[k] = (struct store_item){type, names[k], bodies[k], strlen(bodies[k]),
						       false};
		}
		ret = store_add(s, ids[c], items, n, NULL, NULL);
		for (k = 0; k < n; k++) {
			free(names[k]);
			free(bodies[k]);
		}
		done += n;
	}
	free(items);
	free(names);
	free(bodies);
	store_close(s);
	vcs_close(v);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned ncommits = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 1000;
	unsigned nprof = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 10000;
	char(*ids)[41];
	char *veles;
	int ret;

	if (argc < 2 || ncommits == 0) {
		fputs("usage: log_populate DIR [COMMITS [PROFILES]]\n", stderr);
		return 2;
	}
	git_libgit2_init();
	ids = xcalloc(ncommits, sizeof(*ids));
	veles = xasprintf("%s/.veles", argv[1]);
	ret = mkdir_p(veles);
	if (ret == 0 && make_history(argv[1], ncommits, ids) < 0)
		ret = fail("history");
	else if (ret == 0 && register_profiles(argv[1], ncommits, nprof, ids) < 0)
		ret = fail("profiles");
	else if (ret < 0)
		ret = fail(argv[1]);
	free(veles);
	free(ids);
	git_libgit2_shutdown();
	return ret ? 1 : 0;
}
