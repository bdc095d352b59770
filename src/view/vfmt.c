/* Readable values with units, for the flame graph's titles (vfmt.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/buf.h"
#include "view/vfmt.h"

struct unit {
	const char *name;
	double factor; /* to the family's base: seconds or bytes */
};

static const struct unit time_units[] = {{"ns", 1e-9}, {"us", 1e-6}, {"\xc2\xb5s", 1e-6},
					 {"ms", 1e-3}, {"s", 1},     {"sec", 1}};
static const struct unit byte_units[] = {
	{"B", 1},      {"bytes", 1},	       {"byte", 1},
	{"KiB", 1024}, {"MiB", 1024.0 * 1024}, {"GiB", 1024.0 * 1024 * 1024}};

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

void vfmt_value(struct buf *b, double v, const char *unit)
{
	double f, a;

	if (!isfinite(v)) {
		buf_adds(b, isnan(v) ? "-" : v > 0 ? "inf" : "-inf");
		return;
	}
	unit = unit ? unit : "";
	a = fabs(v);
	if ((f = factor(time_units, sizeof(time_units) / sizeof(*time_units), unit)) > 0) {
		static const char *const names[] = {"ns", "\xc2\xb5s", "ms", "s"};
		double s = a * f;
		int k = s == 0 ? 3 : s < 1e-6 ? 0 : s < 1e-3 ? 1 : s < 1 ? 2 : 3;

		sig4(b, v * f / pow(1000, k - 3));
		buf_addf(b, " %s", names[k]);
		return;
	}
	if ((f = factor(byte_units, sizeof(byte_units) / sizeof(*byte_units), unit)) > 0) {
		static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
		double s = a * f;
		int k = 0;

		while (k < 4 && s >= 1024) {
			s /= 1024;
			k++;
		}
		if (k == 0)
			plain(b, v * f);
		else
			sig4(b, v * f / pow(1024, k));
		buf_addf(b, " %s", names[k]);
		return;
	}
	plain(b, v);
	if (*unit)
		buf_addf(b, " %s", unit);
}

void vfmt_percent(struct buf *b, double pct, int sign)
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
