#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/stats.h"
#include "util/common.h"

#define MODZ_SCALE 0.6745     /* the 0.75 quantile of N(0,1): MAD -> sigma */
#define MODZ_MEANAD 0.7978846 /* sqrt(2/pi): mean absolute deviation -> sigma */
#define MODZ_THRESHOLD 3.5

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double stats_mean(const double *x, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += x[i];
	return n ? sum / (double)n : 0;
}

double stats_stddev(const double *x, size_t n)
{
	double mean = stats_mean(x, n), ss = 0;

	if (n < 2)
		return 0;
	/* Two passes: the one-pass formula loses everything for tight samples. */
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	return sqrt(ss / (double)(n - 1));
}

double stats_quantile_sorted(const double *x, size_t n, double q)
{
	double h, f;
	size_t i;

	if (n == 0)
		return 0;
	h = (double)(n - 1) * q;
	f = h - floor(h);
	i = (size_t)floor(h);
	if (i + 1 >= n)
		return x[n - 1];
	/* Bootstrap ratios hold infinities: no inf * 0 nor inf - inf. */
	if (f == 0 || x[i] == x[i + 1])
		return x[i];
	if (isinf(x[i]) || isinf(x[i + 1]))
		return isinf(x[i + 1]) ? x[i + 1] : x[i];
	return x[i] + f * (x[i + 1] - x[i]);
}

double stats_median_sorted(const double *x, size_t n)
{
	if (n == 0)
		return 0;
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

double stats_median_sort(double *x, size_t n)
{
	qsort(x, n, sizeof(*x), cmp_double);
	return stats_median_sorted(x, n);
}

double stats_median(const double *x, size_t n)
{
	double *c = xmalloc((n ? n : 1) * sizeof(*c));
	double m;

	if (n)
		memcpy(c, x, n * sizeof(*c));
	m = stats_median_sort(c, n);
	free(c);
	return m;
}

/* Median of |x - m| and, when that is 0, the mean of |x - m|. */
static double abs_dev(const double *x, size_t n, double m, double *mean_ad)
{
	double *d = xmalloc((n ? n : 1) * sizeof(*d));
	double mad;

	for (size_t i = 0; i < n; i++)
		d[i] = fabs(x[i] - m);
	if (mean_ad)
		*mean_ad = stats_mean(d, n);
	mad = stats_median_sort(d, n);
	free(d);
	return mad;
}

double stats_mad(const double *x, size_t n)
{
	return abs_dev(x, n, stats_median(x, n), NULL);
}

size_t stats_outliers(const double *x, size_t n, bool *is_outlier)
{
	double m = stats_median(x, n), mean_ad, scale;
	double mad = abs_dev(x, n, m, &mean_ad);
	size_t count = 0;

	if (mad > 0)
		scale = MODZ_SCALE / mad;
	else if (mean_ad > 0)
		scale = MODZ_MEANAD / mean_ad;
	else
		scale = 0;
	for (size_t i = 0; i < n; i++) {
		bool out = fabs(scale * (x[i] - m)) > MODZ_THRESHOLD;

		if (is_outlier)
			is_outlier[i] = out;
		count += out;
	}
	return count;
}

void stats_compute(const double *x, size_t n, struct stats *s)
{
	double *c;

	memset(s, 0, sizeof(*s));
	if (n == 0)
		return;
	c = xmalloc(n * sizeof(*c));
	memcpy(c, x, n * sizeof(*c));
	s->n = n;
	s->mean = stats_mean(x, n);
	s->stddev = stats_stddev(x, n);
	s->median = stats_median_sort(c, n);
	s->min = c[0];
	s->max = c[n - 1];
	s->q1 = stats_quantile_sorted(c, n, 0.25);
	s->q3 = stats_quantile_sorted(c, n, 0.75);
	free(c);
	s->mad = stats_mad(x, n);
	s->noutliers = stats_outliers(x, n, NULL);
}
