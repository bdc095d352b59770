/* Histograms of a profile's resources and their percentiles (see hist.h). */
#include <math.h>
#include <stdlib.h>

#include "profile/hist.h"
#include "util/common.h"
#include "util/error.h"

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return s;
}

/* @s at '['; fills @b from "[LO,HI,N]" and returns past it, or NULL. */
static const char *parse_bucket(const char *s, struct hist_bucket *b)
{
	double v[3];
	char *end;

	for (int i = 0; i < 3; i++) {
		s = skip_ws(s + 1); /* past '[' or ',' */
		v[i] = strtod(s, &end);
		if (end == s || !isfinite(v[i]))
			return NULL;
		s = skip_ws(end);
		if (*s != (i < 2 ? ',' : ']'))
			return NULL;
	}
	if (v[0] > v[1] || v[2] < 0)
		return NULL;
	*b = (struct hist_bucket){v[0], v[1], v[2]};
	return s + 1;
}

int hist_parse(const char *json, struct hist *h)
{
	size_t start = h->n;
	const char *s = skip_ws(json);

	if (*s++ != '[')
		goto bad;
	for (s = skip_ws(s); *s != ']'; s = skip_ws(s)) {
		if (h->n > start && *s++ != ',')
			goto bad;
		s = skip_ws(s);
		if (*s != '[')
			goto bad;
		XGROW(h->b, h->n + 1, h->cap);
		if (!(s = parse_bucket(s, &h->b[h->n])))
			goto bad;
		h->n++;
	}
	if (*skip_ws(s + 1) == '\0')
		return 0;
bad:
	h->n = start;
	return err_set(ERR_PARSE, "not a histogram ([[LO, HI, N], ...]): %.40s", json);
}

void hist_release(struct hist *h)
{
	free(h->b);
	*h = (struct hist){0};
}

double hist_total(const struct hist *h)
{
	double t = 0;

	for (size_t i = 0; i < h->n; i++)
		t += h->b[i].n;
	return t;
}

/* @v within [min, max], where those are known. */
static double clamp(double v, double min, double max)
{
	if (!isnan(min) && v < min)
		v = min;
	if (!isnan(max) && v > max)
		v = max;
	return v;
}

/* How many measurements are at most @x. */
static double cumulative(const struct hist *h, double x, double min, double max)
{
	double c = 0;

	for (size_t i = 0; i < h->n; i++) {
		double lo = clamp(h->b[i].lo, min, max), hi = clamp(h->b[i].hi, min, max);

		if (x >= hi)
			c += h->b[i].n;
		else if (x > lo) /* hi > lo here: an empty range is passed at once */
			c += h->b[i].n * (x - lo) / (hi - lo);
	}
	return c;
}

double hist_percentile(const struct hist *h, double q, double min, double max)
{
	double total = hist_total(h), a = INFINITY, b = -INFINITY, want;

	if (!(total > 0))
		return NAN;
	for (size_t i = 0; i < h->n; i++) {
		if (h->b[i].n <= 0)
			continue;
		a = fmin(a, clamp(h->b[i].lo, min, max));
		b = fmax(b, clamp(h->b[i].hi, min, max));
	}
	want = (q < 0 ? 0 : q > 1 ? 1 : q) * total;
	/* The least x with as many measurements at most x: the cumulative
	 * count grows with x, so halving [a, b] closes on it. */
	for (int i = 0; i < 200 && a < b; i++) {
		double mid = a + (b - a) / 2;

		if (mid <= a || mid >= b)
			break;
		if (cumulative(h, mid, min, max) >= want)
			b = mid;
		else
			a = mid;
	}
	return b;
}
