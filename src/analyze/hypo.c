/* Rank and t tests, and a bootstrap interval of the change in medians. */
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/hypo.h"
#include "analyze/stats.h"
#include "util/common.h"

struct ranked {
	double v;
	unsigned from_a;
};

static int cmp_ranked(const void *x, const void *y)
{
	double a = ((const struct ranked *)x)->v, b = ((const struct ranked *)y)->v;

	return (a > b) - (a < b);
}

/* The rank sum of sample a, and sum(t^3 - t) over groups of t ties. */
static double rank_sum_a(struct ranked *all, size_t n, double *ties)
{
	double sum = 0;
	size_t i = 0;

	*ties = 0;
	qsort(all, n, sizeof(*all), cmp_ranked);
	while (i < n) {
		size_t j = i + 1;
		double rank;

		while (j < n && all[j].v == all[i].v)
			j++;
		/* Ranks i+1..j share their average. */
		rank = (double)(i + 1 + j) / 2.0;
		for (size_t k = i; k < j; k++)
			sum += all[k].from_a ? rank : 0;
		*ties += pow((double)(j - i), 3) - (double)(j - i);
		i = j;
	}
	return sum;
}

/* U of sample @a, and U's mean and tie-corrected variance under the null. */
static void mw_stat(const double *a, size_t na, const double *b, size_t nb, double *u, double *mean,
		    double *var)
{
	size_t n = na + nb;
	struct ranked *all = xcalloc(n, sizeof(*all));
	double ties, r1;

	for (size_t i = 0; i < na; i++)
		all[i] = (struct ranked){a[i], 1};
	for (size_t i = 0; i < nb; i++)
		all[na + i] = (struct ranked){b[i], 0};
	r1 = rank_sum_a(all, n, &ties);
	free(all);
	*u = r1 - (double)na * (double)(na + 1) / 2.0;
	*mean = (double)na * (double)nb / 2.0;
	*var = (double)na * (double)nb / 12.0 *
	       ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
}

double hypo_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *u)
{
	double mean, var, z;

	*u = 0;
	if (na == 0 || nb == 0)
		return 1;
	mw_stat(a, na, b, nb, u, &mean, &var);
	if (!(var > 0))
		return 1;
	z = (fabs(*u - mean) - 0.5) / sqrt(var);
	if (z < 0)
		z = 0;
	return fmin(1.0, 2.0 * gsl_cdf_ugaussian_Q(z));
}

double hypo_welch(const double *a, size_t na, const double *b, size_t nb, double *t, double *df)
{
	double ma, mb, va, vb, se2;

	*t = 0;
	*df = 0;
	if (na < 2 || nb < 2)
		return 1;
	ma = stats_mean(a, na);
	mb = stats_mean(b, nb);
	va = pow(stats_stddev(a, na), 2) / (double)na;
	vb = pow(stats_stddev(b, nb), 2) / (double)nb;
	se2 = va + vb;
	if (se2 == 0) {
		*t = ma == mb ? 0 : (ma < mb ? -INFINITY : INFINITY);
		return ma == mb ? 1 : 0;
	}
	*t = (ma - mb) / sqrt(se2);
	*df = se2 * se2 / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	return fmin(1.0, 2.0 * gsl_cdf_tdist_Q(fabs(*t), *df));
}

uint64_t hypo_rng_next(struct hypo_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A uniform index below @n (n is far below 2^32, so the bias of the
 * multiply-shift is negligible). */
static size_t rng_below(struct hypo_rng *r, size_t n)
{
	return (size_t)(((hypo_rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

static double resampled_median(const double *x, size_t n, double *tmp, struct hypo_rng *r)
{
	for (size_t i = 0; i < n; i++)
		tmp[i] = x[rng_below(r, n)];
	return stats_median_sort(tmp, n);
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/*
 * The ratio of two resampled medians. A zero baseline median beside a
 * positive target is an unbounded slowdown, so it ranks above every finite
 * ratio instead of voiding the whole interval; two zero medians measured
 * nothing, which is no change.
 */
static double median_ratio(double ma, double mb)
{
	if (ma != 0)
		return mb / ma;
	return mb == 0 ? 1 : (mb > 0 ? INFINITY : -INFINITY);
}

void hypo_bootstrap_median_ratio(const double *a, size_t na, const double *b, size_t nb,
				 unsigned rounds, double alpha, uint64_t seed, double *lo,
				 double *hi)
{
	struct hypo_rng r = {seed};
	double *ratios, *tmp;

	*lo = *hi = NAN;
	if (na == 0 || nb == 0 || rounds == 0)
		return;
	ratios = xcalloc(rounds, sizeof(*ratios));
	tmp = xcalloc(na > nb ? na : nb, sizeof(*tmp));
	for (unsigned i = 0; i < rounds; i++) {
		double ma = resampled_median(a, na, tmp, &r);
		double mb = resampled_median(b, nb, tmp, &r);

		ratios[i] = median_ratio(ma, mb);
	}
	qsort(ratios, rounds, sizeof(*ratios), cmp_double);
	*lo = stats_quantile_sorted(ratios, rounds, alpha / 2);
	*hi = stats_quantile_sorted(ratios, rounds, 1 - alpha / 2);
	free(tmp);
	free(ratios);
}

double hypo_van_elteren(const struct hypo_stratum *s, size_t k)
{
	double t = 0, var = 0;

	for (size_t i = 0; i < k; i++) {
		double u, mean, v, w = 1.0 / (double)(s[i].na + s[i].nb + 1);

		if (s[i].na == 0 || s[i].nb == 0)
			continue;
		mw_stat(s[i].a, s[i].na, s[i].b, s[i].nb, &u, &mean, &v);
		/* U counts per pair; van Elteren weighs rank sums, whose
		 * deviations are U's, by 1 / (n + 1). */
		t += w * (u - mean);
		var += w * w * v;
	}
	if (!(var > 0))
		return 1;
	return fmin(1.0, 2.0 * gsl_cdf_ugaussian_Q(fabs(t) / sqrt(var)));
}

double hypo_welch_strata(const struct hypo_stratum *s, size_t k)
{
	double z = 0, w2 = 0;

	for (size_t i = 0; i < k; i++) {
		double t, df, p, w = sqrt((double)(s[i].na + s[i].nb)), zi;

		if (s[i].na < 2 || s[i].nb < 2)
			continue;
		p = hypo_welch(s[i].a, s[i].na, s[i].b, s[i].nb, &t, &df);
		/* The signed z of the one-sided p (t > 0: the baseline is larger). */
		zi = p >= 1 ? 0 : gsl_cdf_ugaussian_Qinv(fmax(p / 2, 1e-300));
		z += w * (t > 0 ? zi : -zi);
		w2 += w * w;
	}
	if (!(w2 > 0))
		return 1;
	return fmin(1.0, 2.0 * gsl_cdf_ugaussian_Q(fabs(z) / sqrt(w2)));
}

/* The geometric mean of per-stratum ratios; an unbounded one wins. */
static double geo_mean(const double *r, size_t k)
{
	double sum = 0;

	for (size_t i = 0; i < k; i++) {
		if (isinf(r[i]) && r[i] > 0)
			return INFINITY;
		sum += log(r[i]) / (double)k;
	}
	return exp(sum);
}

void hypo_bootstrap_strata_ratio(const struct hypo_stratum *s, size_t k, unsigned rounds,
				 double alpha, uint64_t seed, double *lo, double *hi)
{
	struct hypo_rng r = {seed};
	double *ratios, *tmp, *per;
	size_t most = 0;

	*lo = *hi = NAN;
	if (k == 0 || rounds == 0)
		return;
	for (size_t i = 0; i < k; i++) {
		if (s[i].na == 0 || s[i].nb == 0)
			return;
		most = s[i].na > most ? s[i].na : most;
		most = s[i].nb > most ? s[i].nb : most;
	}
	ratios = xcalloc(rounds, sizeof(*ratios));
	tmp = xcalloc(most, sizeof(*tmp));
	per = xcalloc(k, sizeof(*per));
	for (unsigned i = 0; i < rounds; i++) {
		for (size_t j = 0; j < k; j++) {
			double ma = resampled_median(s[j].a, s[j].na, tmp, &r);
			double mb = resampled_median(s[j].b, s[j].nb, tmp, &r);

			per[j] = median_ratio(ma, mb);
		}
		ratios[i] = geo_mean(per, k);
	}
	qsort(ratios, rounds, sizeof(*ratios), cmp_double);
	*lo = stats_quantile_sorted(ratios, rounds, alpha / 2);
	*hi = stats_quantile_sorted(ratios, rounds, 1 - alpha / 2);
	free(per);
	free(tmp);
	free(ratios);
}
