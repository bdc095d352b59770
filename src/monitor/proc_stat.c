/* /proc/stat: the cpu lines (jiffies per state) and the system counters. */
#include <string.h>

#include "monitor/monitor.h"
#include "util/common.h"

#define CPU_NCOLS 10

/* The end of the line that starts at @p. */
static const char *line_end(const char *p)
{
	const char *e = strchr(p, '\n');

	return e ? e : p + strlen(p);
}

int mon_parse_cpu(const char *text, struct mon_table *t)
{
	for (const char *p = text; *p; p = *line_end(p) ? line_end(p) + 1 : line_end(p)) {
		size_t n = strcspn(p, " \n");
		uint64_t *row;
		const char *q = p + n;

		if (strncmp(p, "cpu", 3))
			continue;
		row = mon_table_add(t, p, n, CPU_NCOLS);
		/* Older kernels print fewer columns: the rest stay zero. */
		for (int i = 0; i < CPU_NCOLS && *q == ' '; i++)
			row[i] = mon_num(&q);
	}
	return t->nrows ? 0 : err_set(ERR_PARSE, "no cpu line in /proc/stat");
}

/* The number after the line starting with @key, or 0. */
static uint64_t keyed(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, n) && p[n] == ' ') {
			const char *q = p + n;

			return mon_num(&q);
		}
	return 0;
}

int mon_parse_stat(const char *text, struct mon_table *t)
{
	uint64_t *row = mon_table_add(t, "stat", 4, 5);

	row[0] = keyed(text, "intr");
	row[1] = keyed(text, "ctxt");
	row[2] = keyed(text, "processes");
	row[3] = keyed(text, "procs_running");
	row[4] = keyed(text, "procs_blocked");
	return 0;
}
