/*
 * /proc/net/dev: two header lines, then "  name: rx(8 fields) tx(8 fields)".
 * Kept: bytes, packets, errors, drops in each direction.
 */
#include <string.h>

#include "monitor/monitor.h"
#include "util/common.h"

int mon_parse_netdev(const char *text, struct mon_table *t)
{
	for (const char *p = text; p && *p;) {
		const char *colon = strchr(p, ':');
		const char *eol = strchr(p, '\n');

		if (colon && (!eol || colon < eol)) {
			const char *name = p;
			uint64_t f[16];
			uint64_t *row;
			const char *q = colon + 1;

			while (*name == ' ')
				name++;
			for (int i = 0; i < 16; i++)
				f[i] = mon_num(&q);
			row = mon_table_add(t, name, (size_t)(colon - name), 8);
			memcpy(row, f, 4 * sizeof(*f));
			memcpy(row + 4, f + 8, 4 * sizeof(*f));
		}
		p = eol ? eol + 1 : NULL;
	}
	return 0;
}
