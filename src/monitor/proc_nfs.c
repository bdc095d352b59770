/*
 * /proc/net/rpc/nfs, the NFS client: "rpc calls retrans authrefresh", then
 * "procN COUNT c0 c1 ..." per protocol version. Reads, writes, commits,
 * getattrs, lookups and accesses of versions 3 and 4 are added together.
 */
#include <string.h>

#include "monitor/monitor.h"
#include "util/common.h"

/* Positions after the count, per version, of read write commit getattr
 * lookup access: NFS3PROC_* for version 3, and for version 4 the client's
 * NFSPROC4_CLNT_* enum of include/linux/nfs4.h (NULL 0, READ 1, WRITE 2,
 * COMMIT 3, ..., LOCKU 16, ACCESS 17, GETATTR 18, LOOKUP 19). */
static const int v3_pos[6] = {6, 7, 21, 1, 3, 4};
static const int v4_pos[6] = {1, 2, 3, 18, 19, 17};

static void add_proc(const char *q, const int *pos, uint64_t *row)
{
	uint64_t v[64];
	uint64_t n = mon_num(&q);

	if (n > ARRAY_SIZE(v))
		n = ARRAY_SIZE(v);
	for (uint64_t i = 0; i < n; i++)
		v[i] = mon_num(&q);
	for (int i = 0; i < 6; i++)
		if ((uint64_t)pos[i] < n)
			row[3 + i] += v[pos[i]];
}

int mon_parse_nfs(const char *text, struct mon_table *t)
{
	uint64_t *row = mon_table_add(t, "nfs", 3, 9);

	for (const char *p = text; p && *p;) {
		if (!strncmp(p, "rpc ", 4)) {
			const char *q = p + 4;

			for (int i = 0; i < 3; i++)
				row[i] = mon_num(&q);
		} else if (!strncmp(p, "proc3 ", 6)) {
			add_proc(p + 6, v3_pos, row);
		} else if (!strncmp(p, "proc4 ", 6)) {
			add_proc(p + 6, v4_pos, row);
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return 0;
}
