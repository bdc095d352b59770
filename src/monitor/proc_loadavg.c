/* /proc/loadavg: "0.52 0.58 0.59 2/345 1234"; loads kept in hundredths. */
#include "monitor/monitor.h"
#include "util/common.h"

/* "1.35" as 135. */
static uint64_t hundredths(const char **p)
{
	uint64_t v = mon_num(p) * 100;

	if (**p == '.') {
		const char *q = ++*p;
		uint64_t frac = mon_num(p);

		for (long d = *p - q; d < 2; d++)
			frac *= 10;
		for (long d = *p - q; d > 2; d--)
			frac /= 10;
		v += frac;
	}
	return v;
}

int mon_parse_loadavg(const char *text, struct mon_table *t)
{
	uint64_t *row = mon_table_add(t, "load", 4, 5);
	const char *p = text;

	for (int i = 0; i < 3; i++)
		row[i] = hundredths(&p);
	row[3] = mon_num(&p);
	if (*p != '/')
		return err_set(ERR_PARSE, "malformed /proc/loadavg");
	p++;
	row[4] = mon_num(&p);
	return 0;
}
