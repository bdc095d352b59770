/*
 * /proc/interrupts: a header of cpus, then "  NAME:  n0  n1 ... description".
 * Each row keeps the sum over cpus; ERR and MIS have a single number.
 */
#include <ctype.h>
#include <string.h>

#include "monitor/monitor.h"
#include "util/common.h"

/* The number of "CPUn" columns in the header line. */
static int count_cpus(const char *line, const char *eol)
{
	int n = 0;

	/* p + 3 is inside the text only after a match: a header shorter
	 * than "CPU" must not be skipped past its end. */
	for (const char *p = strstr(line, "CPU"); p && p < eol; p = strstr(p + 3, "CPU"))
		n++;
	return n;
}

int mon_parse_interrupts(const char *text, struct mon_table *t)
{
	const char *eol = strchr(text, '\n');
	int ncpu = eol ? count_cpus(text, eol) : 0;

	if (!eol || !ncpu)
		return err_set(ERR_PARSE, "no cpu header in /proc/interrupts");
	for (const char *p = eol + 1; *p;) {
		const char *colon = strchr(p, ':');
		const char *name = p;

		eol = strchr(p, '\n');
		if (!eol)
			eol = p + strlen(p);
		while (*name == ' ')
			name++;
		if (colon && colon < eol) {
			uint64_t *row = mon_table_add(t, name, (size_t)(colon - name), 1);
			const char *q = colon + 1;

			for (int i = 0; i < ncpu; i++) {
				while (*q == ' ')
					q++;
				if (!isdigit((unsigned char)*q))
					break;
				*row += mon_num(&q);
			}
		}
		p = *eol ? eol + 1 : eol;
	}
	return 0;
}
