/* /proc/stat: the cpu lines (jiffies per state) and the system counters. */
#include <string.h>

#include "monitor/monitor.h"
#include "util/common.h"

#define CPU_NCOLS 10

/* The start of the line after the one at @p (the end of the text after
 * the last). */
static const char *next_line(const char *p)
{
	const char *e = strchr(p, '\n');

	return e ? e + 1 : p + strlen(p);
}

/* The cpu lines come first: parsing stops at the first line after them. */
int mon_parse_cpu(const char *text, struct mon_table *t)
{
	for (const char *p = text; *p; p = next_line(p)) {
		size_t n = strcspn(p, " \n");
		uint64_t *row;
		const char *q = p + n;

		if (strncmp(p, "cpu", 3)) {
			if (t->nrows)
				break;
			continue;
		}
		row = mon_table_add(t, p, n, CPU_NCOLS);
		/* Older kernels print fewer columns: the rest stay zero. */
		for (int i = 0; i < CPU_NCOLS && *q == ' '; i++)
			row[i] = mon_num(&q);
	}
	return t->nrows ? 0 : err_set(ERR_PARSE, "no cpu line in /proc/stat");
}

/* The lines kept, in the order of the table's columns. */
static const struct {
	const char *key;
	size_t len;
} stat_keys[] = {
	{"intr", 4}, {"ctxt", 4}, {"processes", 9}, {"procs_running", 13}, {"procs_blocked", 13},
};

/* One pass over the lines: each key's number, 0 for a key not there. */
int mon_parse_stat(const char *text, struct mon_table *t)
{
	uint64_t *row = mon_table_add(t, "stat", 4, ARRAY_SIZE(stat_keys));
	unsigned found = 0;

	for (const char *p = text; *p; p = next_line(p))
		for (size_t k = 0; k < ARRAY_SIZE(stat_keys); k++) {
			size_t n = stat_keys[k].len;

			if (p[0] == stat_keys[k].key[0] && !(found & (1u << k)) &&
			    !strncmp(p, stat_keys[k].key, n) && p[n] == ' ') {
				const char *q = p + n;

				row[k] = mon_num(&q);
				found |= 1u << k;
				break;
			}
		}
	return 0;
}
