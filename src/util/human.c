#include <math.h>
#include <stdio.h>

#include "util/common.h"
#include "util/human.h"

struct step {
	double at;	  /* |ref| from which the unit applies */
	double div;	  /* what a value is divided by in it */
	const char *unit; /* written after the number */
};

/* Each kind's units, the base unit first. */
static const struct step bytes[] = {
	{0, 1, " B"}, {1e3, 1e3, " kB"}, {1e6, 1e6, " MB"}, {1e9, 1e9, " GB"}, {1e12, 1e12, " TB"},
};
static const struct step seconds[] = {
	{0, 1e-6, " \xc2\xb5s"}, /* µs */
	{1e-3, 1e-3, " ms"},
	{1, 1, " s"},
};
/* Four digits read as easily as "9.99k" and say more. */
static const struct step counts[] = {
	{0, 1, ""},
	{1e4, 1e3, "k"},
	{1e6, 1e6, "M"},
	{1e9, 1e9, "G"},
};

const char *human_num(char *out, size_t len, double v, double ref, enum human_kind kind, int prec)
{
	const struct step *s = kind == HUMAN_BYTES ? bytes : kind == HUMAN_COUNT ? counts : seconds;
	size_t n = kind == HUMAN_BYTES	 ? ARRAY_SIZE(bytes)
		   : kind == HUMAN_COUNT ? ARRAY_SIZE(counts)
					 : ARRAY_SIZE(seconds);
	double a = fabs(ref);
	size_t u = 0;

	while (u + 1 < n && a >= s[u + 1].at)
		u++;
	if (kind != HUMAN_SECONDS && u == 0)
		snprintf(out, len, "%.0f%s", v, s[u].unit);
	else if (prec < 0)
		snprintf(out, len, "%.*g%s", -prec, v / s[u].div, s[u].unit);
	else
		snprintf(out, len, "%.*f%s", prec, v / s[u].div, s[u].unit);
	return out;
}
