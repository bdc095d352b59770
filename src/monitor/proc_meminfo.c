/* /proc/meminfo: "Key:   12345 kB" lines, the ones the memory view shows. */
#include <string.h>

#include "monitor/monitor.h"
#include "util/common.h"

/* In the order of the table's columns. */
static const char *const keys[] = {
	"MemTotal", "MemFree",	 "MemAvailable", "Buffers",	 "Cached",    "Active",
	"Inactive", "SwapTotal", "SwapFree",	 "Dirty",	 "Writeback", "AnonPages",
	"Mapped",   "Shmem",	 "Slab",	 "Committed_AS",
};

static int key_index(const char *p, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (strlen(keys[i]) == n && !memcmp(keys[i], p, n))
			return (int)i;
	return -1;
}

int mon_parse_meminfo(const char *text, struct mon_table *t)
{
	uint64_t *row = mon_table_add(t, "mem", 3, ARRAY_SIZE(keys));
	int found = 0;

	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, ":\n");
		int k = p[n] == ':' ? key_index(p, n) : -1;
		const char *q = p + n + 1;

		if (k >= 0) {
			row[k] = mon_num(&q);
			found++;
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return found ? 0 : err_set(ERR_PARSE, "no known key in /proc/meminfo");
}
