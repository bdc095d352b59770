/*
 * Builds the project bench/history.sh measures: a git project of N
 * commits (made straight into the object database) with one time profile
 * per commit, in the store's ledger as `veles add` leaves it, each with M
 * metrics (subtypes m00, m01, ...) of five repetitions: N versions x M
 * series. Metric m00 slows down by 30% from the commit at three quarters.
 *
 * usage: history_populate DIR [COMMITS [METRICS]]
 */
#include <git2.h>
#include <git2/sys/commit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "populate.h"
#include "util/buf.h"
#include "util/common.h"
#include "vcs/vcs.h"

/* Version @v's profile: @nm metrics of five runs each, a little noise. */
static void profile_json(struct buf *b, unsigned v, unsigned ncommits, unsigned nm)
{
	buf_reset(b);
	buf_addf(b,
		 "{\"origin\":\"%u\",\"header\":{\"type\":\"time\",\"cmd\":\"./prog\","
		 "\"workload\":\"1000\",\"units\":{\"time\":\"s\"}},"
		 "\"collector_info\":{\"name\":\"time\",\"params\":{}},\"resources\":[",
		 v);
	for (unsigned m = 0; m < nm; m++)
		for (unsigned r = 0; r < 5; r++) {
			double base = 0.1 + 0.01 * m;
			double slow = m == 0 && v >= ncommits * 3 / 4 ? 1.3 : 1.0;
			double noise = 1.0 + 0.002 * (double)((v * 7 + r * 13 + m * 3) % 5);

			buf_addf(b, "%s{\"amount\":%.6f,\"uid\":\"./prog\",\"subtype\":\"m%02u\"}",
				 m || r ? "," : "", base * slow * noise, m);
		}
	buf_adds(b, "]}");
}

/*
 * The ledger written at once, in the layout of docs/store.md (one ledger
 * commit holding every version's profile): registering 10,000 profiles
 * one `veles add` at a time would take the bench a quarter of an hour of
 * fsyncs, and the index reads the same tree either way.
 */
static int register_profiles(const char *dir, unsigned ncommits, unsigned nm, char (*ids)[41])
{
	git_repository *repo = NULL;
	git_index *idx = NULL;
	git_signature *sig = NULL;
	git_reference *ref = NULL;
	struct buf body = BUF_INIT;
	git_oid tree, commit;
	int ret = git_repository_open(&repo, dir);

	if (ret == 0)
		ret = git_index_new(&idx);
	for (unsigned c = 0; c < ncommits && ret == 0; c++) {
		git_index_entry e = {0};
		char path[128];

		profile_json(&body, c, ncommits, nm);
		snprintf(path, sizeof(path), "versions/%.2s/%s/time/prog-time-%u.perf", ids[c],
			 ids[c] + 2, c);
		e.mode = GIT_FILEMODE_BLOB;
		e.path = path;
		ret = git_blob_create_from_buffer(&e.id, repo, body.data, body.len);
		if (ret == 0)
			ret = git_index_add(idx, &e);
	}
	if (ret == 0)
		ret = git_index_write_tree_to(&tree, idx, repo);
	if (ret == 0)
		ret = git_signature_new(&sig, "Bench", "bench@example.org", 1700000000, 0);
	if (ret == 0)
		ret = git_commit_create_from_ids(&commit, repo, NULL, sig, sig, NULL,
						 "add: the bench's profiles\n", &tree, 0, NULL);
	if (ret == 0)
		ret = git_reference_create(&ref, repo, "refs/veles/ledger", &commit, 1, NULL);
	git_reference_free(ref);
	git_signature_free(sig);
	git_index_free(idx);
	git_repository_free(repo);
	buf_release(&body);
	return ret < 0 ? vcs_git_error(ret, "cannot register the profiles") : 0;
}

int main(int argc, char **argv)
{
	unsigned ncommits = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 10000;
	unsigned nm = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 20;
	char(*ids)[41];
	int ret;

	if (argc < 2 || ncommits == 0 || nm == 0) {
		fputs("usage: history_populate DIR [COMMITS [METRICS]]\n", stderr);
		return 2;
	}
	git_libgit2_init();
	ret = populate_history("history_populate", argv[1], ncommits, &ids);
	if (ret == 0 && register_profiles(argv[1], ncommits, nm, ids) < 0)
		ret = populate_fail("history_populate", "profiles");
	free(ids);
	git_libgit2_shutdown();
	return ret ? 1 : 0;
}
