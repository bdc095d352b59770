/*
 * Builds the repository bench/log.sh measures: a git project with N
 * commits (made straight into the object database, no work tree churn)
 * and M profiles registered over them with store_add, one ledger commit
 * per version, as `veles add` after each run would leave it.
 *
 * usage: log_populate DIR [COMMITS [PROFILES]]
 */
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "populate.h"
#include "store/store.h"
#include "util/common.h"
#include "vcs/vcs.h"

static const char *const types[] = {"time", "memory", "mixed"};

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
	int ret;

	if (argc < 2 || ncommits == 0) {
		fputs("usage: log_populate DIR [COMMITS [PROFILES]]\n", stderr);
		return 2;
	}
	git_libgit2_init();
	ret = populate_history("log_populate", argv[1], ncommits, &ids);
	if (ret == 0 && register_profiles(argv[1], ncommits, nprof, ids) < 0)
		ret = populate_fail("log_populate", "profiles");
	free(ids);
	git_libgit2_shutdown();
	return ret ? 1 : 0;
}
