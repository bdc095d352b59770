/* Readable values with units (human.h): one ladder of units per family,
 * climbed by one rule, and the few ways of writing the number in it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/buf.h"
#include "util/common.h"
#include "util/human.h"

/* A rung: from a magnitude of @at (in the family's base unit: bytes,
 * seconds, ones) a value is divided by @div and followed by @unit. */
struct step {
	double at;
	double div;
	const char *unit;
};

struct ladder {
	const struct step *s;
	size_t n;
};

#define LADDER(steps) ((struct ladder){steps, ARRAY_SIZE(steps)})
#define KI 1024.0

/* human_num's: decimal bytes and hyperfine's times. */
static const struct step bytes_si[] = {
	{0, 1, " B"}, {1e3, 1e3, " kB"}, {1e6, 1e6, " MB"}, {1e9, 1e9, " GB"}, {1e12, 1e12, " TB"},
};
static const struct step seconds_from_us[] = {
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
/* human_value's: a profile's times down to ns, its bytes in powers of 1024. */
static const struct step seconds_from_ns[] = {
	{0, 1e-9, " ns"},
	{1e-6, 1e-6, " \xc2\xb5s"},
	{1e-3, 1e-3, " ms"},
	{1, 1, " s"},
};
static const struct step bytes_iec[] = {
	{0, 1, " B"},
	{KI, KI, " KiB"},
	{KI * KI, KI *KI, " MiB"},
	{KI * KI * KI, KI *KI *KI, " GiB"},
	{KI * KI * KI * KI, KI *KI *KI *KI, " TiB"},
};

/* The rung for magnitude @a: the last one it reaches. */
static size_t climb(struct ladder l, double a)
{
	size_t u = 0;

	while (u + 1 < l.n && a >= l.s[u + 1].at)
		u++;
	return u;
}

const char *human_num(char *out, size_t len, double v, double ref, enum human_kind kind, int prec)
{
	struct ladder l = kind == HUMAN_BYTES	? LADDER(bytes_si)
			  : kind == HUMAN_COUNT ? LADDER(counts)
						: LADDER(seconds_from_us);
	size_t u = climb(l, fabs(ref));

	if (kind != HUMAN_SECONDS && u == 0)
		snprintf(out, len, "%.0f%s", v, l.s[u].unit);
	else if (prec < 0)
		snprintf(out, len, "%.*g%s", -prec, v / l.s[u].div, l.s[u].unit);
	else
		snprintf(out, len, "%.*f%s", prec, v / l.s[u].div, l.s[u].unit);
	return out;
}

/* ---- a profile's values ---- */

/* The units a profile names, with what one is in its family's base. */
struct unit {
	const char *name;
	double factor;
};

static const struct unit time_units[] = {{"ns", 1e-9}, {"us", 1e-6}, {"\xc2\xb5s", 1e-6},
					 {"ms", 1e-3}, {"s", 1},     {"sec", 1}};
static const struct unit byte_units[] = {{"B", 1},    {"bytes", 1},    {"byte", 1},
					 {"KiB", KI}, {"MiB", KI *KI}, {"GiB", KI *KI *KI}};

static double factor(const struct unit *u, size_t n, const char *unit)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(u[i].name, unit) == 0)
			return u[i].factor;
	return 0;
}

/* Four significant digits, fixed notation, no trailing zeros. */
static void sig4(struct buf *b, double v)
{
	char s[64];
	int e = v == 0 ? 0 : (int)floor(log10(fabs(v)));
	int dec = e >= 3 ? 0 : 3 - e;
	char *end;

	snprintf(s, sizeof(s), "%.*f", dec, v);
	if (strchr(s, '.')) {
		end = s + strlen(s) - 1;
		while (*end == '0')
			*end-- = '\0';
		if (*end == '.')
			*end = '\0';
	}
	buf_adds(b, strcmp(s, "-0") == 0 ? "0" : s);
}

/* An integer with its thousands separated: 14,482,100. */
static void grouped(struct buf *b, double v)
{
	char s[32];
	size_t n, lead;

	snprintf(s, sizeof(s), "%.0f", fabs(v));
	n = strlen(s);
	lead = n % 3 ? n % 3 : 3;
	if (v < 0)
		buf_addc(b, '-');
	buf_add(b, s, lead);
	for (size_t i = lead; i < n; i += 3) {
		buf_addc(b, ',');
		buf_add(b, s + i, 3);
	}
}

static void plain(struct buf *b, double v)
{
	double a = fabs(v);

	if (a >= 1e15 || (a > 0 && a < 1e-3))
		buf_addf(b, "%.4g", v);
	else if (v == floor(v))
		grouped(b, v);
	else
		sig4(b, v);
}

void human_value(struct buf *b, double v, const char *unit)
{
	double f;
	size_t u;

	if (!isfinite(v)) {
		buf_adds(b, isnan(v) ? "-" : v > 0 ? "inf" : "-inf");
		return;
	}
	unit = unit ? unit : "";
	if ((f = factor(time_units, ARRAY_SIZE(time_units), unit)) > 0) {
		struct ladder l = LADDER(seconds_from_ns);

		double s = fabs(v) * f;

		/* Nothing at all reads best in the base unit: "0 s". */
		u = s == 0 ? l.n - 1 : climb(l, s);
		sig4(b, v * f / l.s[u].div);
		buf_adds(b, l.s[u].unit);
		return;
	}
	if ((f = factor(byte_units, ARRAY_SIZE(byte_units), unit)) > 0) {
		struct ladder l = LADDER(bytes_iec);

		u = climb(l, fabs(v) * f);
		if (u == 0)
			plain(b, v * f);
		else
			sig4(b, v * f / l.s[u].div);
		buf_adds(b, l.s[u].unit);
		return;
	}
	plain(b, v);
	if (*unit)
		buf_addf(b, " %s", unit);
}

void human_percent(struct buf *b, double pct, int sign)
{
	double a = fabs(pct);
	const char *plus = sign && pct > 0 ? "+" : "";

	if (!isfinite(pct))
		buf_adds(b, "-");
	else if (a == 0)
		buf_adds(b, "0%");
	else if (a < 0.01)
		buf_addf(b, "%s<0.01%%", pct < 0 ? "-" : plus);
	else
		buf_addf(b, "%s%.*f%%", plus, a < 1 ? 2 : 1, pct);
}
