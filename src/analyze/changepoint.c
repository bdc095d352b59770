/* PELT over prefix sums: O(n) on average, O(n^2) at worst. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/changepoint.h"
#include "analyze/stats.h"
#include "util/common.h"

#define CHANGEPOINT_MIN_SEGMENT 2

double changepoint_noise(const double *y, size_t n)
{
	double *d, mad;

	if (n < 3)
		return 0;
	d = xcalloc(n - 1, sizeof(*d));
	for (size_t i = 1; i < n; i++)
		d[i - 1] = y[i] - y[i - 1];
	/* A difference of two values has twice the variance of one. */
	mad = 1.4826 * stats_mad(d, n - 1);
	/* Quantised values can leave more than half the differences equal:
	 * the mean absolute difference (scaled to sigma for a normal) then. */
	if (mad == 0) {
		for (size_t i = 0; i < n - 1; i++)
			mad += fabs(d[i]) / (double)(n - 1);
		mad *= 1.2533;
	}
	free(d);
	return mad / sqrt(2.0);
}

/* Sum of squared deviations of y[s..t) from their mean. */
static double seg_cost(const double *sum, const double *sum2, size_t s, size_t t)
{
	double len = (double)(t - s), m = (sum[t] - sum[s]) / len;
	double c = (sum2[t] - sum2[s]) - len * m * m;

	return c > 0 ? c : 0;
}

static double seg_mean(const double *sum, size_t s, size_t t)
{
	return (sum[t] - sum[s]) / (double)(t - s);
}

/*
 * Optimal partition into segments of at least CHANGEPOINT_MIN_SEGMENT
 * values; last[t] = start of the final segment of y[0..t). A single value
 * may stand alone too, wherever it is, at twice the penalty: one version
 * far off its neighbours (a -90% dip, then a +187% recovery) is two
 * shifts, into it and out of it, marked by the same rule both ways. Were
 * it allowed only at the newest value, the step out of a dip would be
 * marked and the step into it not.
 */
static void pelt(const double *sum, const double *sum2, size_t n, double beta, size_t *last)
{
	const size_t m = CHANGEPOINT_MIN_SEGMENT;
	double *f = xcalloc(n + 1, sizeof(*f));
	size_t *cand = xcalloc(n + 1, sizeof(*cand)), ncand = 1;

	f[0] = -beta;
	cand[0] = 0;
	for (size_t t = 1; t <= n; t++) {
		size_t keep = 0;

		f[t] = INFINITY;
		last[t] = 0;
		for (size_t k = 0; k < ncand; k++) {
			double v;

			bool alone = t - cand[k] == 1 && n > 2;

			if (t - cand[k] < m && !(t == n && cand[k] == 0) && !alone)
				continue;
			v = f[cand[k]] + seg_cost(sum, sum2, cand[k], t) +
			    (alone ? 2 * beta : beta);
			if (v < f[t]) {
				f[t] = v;
				last[t] = cand[k];
			}
		}
		/* Pruning: a start that cannot beat f[t] now never will (only
		 * for starts far enough back to have been tried). */
		for (size_t k = 0; k < ncand; k++)
			if (t - cand[k] < m || f[cand[k]] + seg_cost(sum, sum2, cand[k], t) <= f[t])
				cand[keep++] = cand[k];
		if (isfinite(f[t]))
			cand[keep++] = t;
		ncand = keep;
	}
	free(f);
	free(cand);
}

size_t changepoint_pelt(const double *y, size_t n, double sigma_floor, double min_step,
			bool *is_change, double *fit)
{
	double *sum, *sum2, sigma, beta;
	size_t *last, *starts, nstarts = 0, found = 0;

	memset(is_change, 0, n * sizeof(*is_change));
	for (size_t i = 0; fit && i < n; i++)
		fit[i] = y[i];
	if (n < 2)
		return 0;
	sigma = fmax(changepoint_noise(y, n), sigma_floor);
	/* Noise-free series: any step is real; keep the penalty above zero so
	 * equal values still form one segment. */
	if (!(sigma > 0))
		sigma = 1e-9 * (fabs(stats_mean(y, n)) + 1e-300);
	beta = 2.0 * sigma * sigma * log((double)n);
	sum = xcalloc(n + 1, sizeof(*sum));
	sum2 = xcalloc(n + 1, sizeof(*sum2));
	for (size_t i = 0; i < n; i++) {
		sum[i + 1] = sum[i] + y[i];
		sum2[i + 1] = sum2[i] + y[i] * y[i];
	}
	last = xcalloc(n + 1, sizeof(*last));
	pelt(sum, sum2, n, beta, last);
	starts = xcalloc(n + 1, sizeof(*starts));
	for (size_t t = n; t > 0; t = last[t])
		starts[nstarts++] = t;
	starts[nstarts++] = 0;
	for (size_t k = 0; fit && k + 1 < nstarts; k++)
		for (size_t i = starts[k + 1]; i < starts[k]; i++)
			fit[i] = seg_mean(sum, starts[k + 1], starts[k]);
	/* starts: n, ..., 0 (segment ends, newest first). */
	for (size_t k = nstarts - 2; k >= 1; k--) {
		size_t a = starts[k + 1], b = starts[k], c = starts[k - 1];
		double before = seg_mean(sum, a, b), after = seg_mean(sum, b, c);

		if (fabs(after - before) >= min_step) {
			is_change[b] = true;
			found++;
		}
	}
	free(sum);
	free(sum2);
	free(last);
	free(starts);
	return found;
}
