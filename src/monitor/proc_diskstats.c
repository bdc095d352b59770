/*
 * /proc/diskstats: "major minor name" then eleven or more counters. Only
 * whole disks and device-mapper volumes are kept: partitions would count
 * each transfer twice in the totals, and loop, ram and cd-rom devices are
 * noise.
 */
#include <ctype.h>
#include <string.h>

#include "monitor/monitor.h"
#include "util/common.h"

#define DISK_NCOLS 11

static bool starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(s, prefix, k);
}

/* "nvme0n1p2", "mmcblk0p1": a 'p' and digits after the device's own digit. */
static bool p_partition(const char *s, size_t n)
{
	size_t i = n;

	while (i > 0 && isdigit((unsigned char)s[i - 1]))
		i--;
	return i < n && i >= 2 && s[i - 1] == 'p' && isdigit((unsigned char)s[i - 2]);
}

bool mon_disk_is_whole(const char *s, size_t n)
{
	static const char *const skip[] = {"loop", "ram", "fd", "sr"};
	static const char *const lettered[] = {"sd", "hd", "vd", "xvd"};

	for (size_t i = 0; i < ARRAY_SIZE(skip); i++)
		if (starts(s, n, skip[i]))
			return false;
	if (starts(s, n, "nvme") || starts(s, n, "mmcblk"))
		return !p_partition(s, n);
	for (size_t i = 0; i < ARRAY_SIZE(lettered); i++)
		if (starts(s, n, lettered[i]))
			return !isdigit((unsigned char)s[n - 1]);
	return n > 0;
}

int mon_parse_diskstats(const char *text, struct mon_table *t)
{
	for (const char *p = text; p && *p;) {
		const char *q = p;
		size_t n;

		mon_num(&q); /* major */
		mon_num(&q); /* minor */
		while (*q == ' ')
			q++;
		n = strcspn(q, " \n");
		if (n && mon_disk_is_whole(q, n)) {
			uint64_t *row = mon_table_add(t, q, n, DISK_NCOLS);

			q += n;
			for (int i = 0; i < DISK_NCOLS; i++)
				row[i] = mon_num(&q);
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return 0;
}
