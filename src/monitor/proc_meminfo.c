/* /proc/meminfo: "Key:   12345 kB" lines, the ones the memory view shows. */
#include <string.h>

#include "monitor/monitor.h"
#include "util/common.h"

#define KEY(s)                                                                                     \
	{                                                                                          \
		s, sizeof(s) - 1                                                                   \
	}

/* In the order of the table's columns, with their lengths: meminfo has
 * some fifty lines, each compared with every key at every sample. */
static const struct {
	const char *name;
	size_t len;
} keys[] = {
	KEY("MemTotal"), KEY("MemFree"), KEY("MemAvailable"), KEY("Buffers"),
	KEY("Cached"),	 KEY("Active"),	 KEY("Inactive"),     KEY("SwapTotal"),
	KEY("SwapFree"), KEY("Dirty"),	 KEY("Writeback"),    KEY("AnonPages"),
	KEY("Mapped"),	 KEY("Shmem"),	 KEY("Slab"),	      KEY("Committed_AS"),
};

static int key_index(const char *p, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (keys[i].len == n && keys[i].name[0] == p[0] && !memcmp(keys[i].name, p, n))
			return (int)i;
	return -1;
}

/* Stops once every key is found: Committed_AS, the last, comes some
 * twenty lines before the end. */
int mon_parse_meminfo(const char *text, struct mon_table *t)
{
	uint64_t *row = mon_table_add(t, "mem", 3, ARRAY_SIZE(keys));
	const uint32_t all = (1u << ARRAY_SIZE(keys)) - 1;
	uint32_t found = 0;

	for (const char *p = text; p && *p && found != all;) {
		size_t n = strcspn(p, ":\n");
		int k = p[n] == ':' ? key_index(p, n) : -1;
		const char *q = p + n + 1;

		if (k >= 0) {
			row[k] = mon_num(&q);
			found |= 1u << k;
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return found ? 0 : err_set(ERR_PARSE, "no known key in /proc/meminfo");
}
