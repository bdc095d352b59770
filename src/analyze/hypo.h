/*
 * Two-sample tests on repeated measurements: is the target sample slower
 * than the baseline, and by how much, with what certainty? What the `stat`
 * degradation check rests on.
 */
#ifndef ANALYZE_HYPO_H
#define ANALYZE_HYPO_H

#include <stddef.h>
#include <stdint.h>

/*
 * Mann-Whitney U (Wilcoxon rank-sum) test, two-sided: ranks with ties
 * averaged, the normal approximation with the tie correction and a
 * continuity correction of 0.5 (as scipy's mannwhitneyu with
 * method="asymptotic"). Returns the p-value (1 when either sample is
 * empty or every value is tied) and sets *@u to U of sample @a.
 */
double hypo_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *u);

/*
 * Welch's unequal-variances t-test, two-sided (scipy's ttest_ind with
 * equal_var=False). Returns the p-value; 1 when a sample has fewer than 2
 * values or both have no spread and equal means, 0 when neither spreads
 * and the means differ. Sets *@t and *@df.
 */
double hypo_welch(const double *a, size_t na, const double *b, size_t nb, double *t, double *df);

/* A small, fast, seedable generator (splitmix64), so bootstrap intervals
 * are the same on every run of the same data. */
struct hypo_rng {
	uint64_t s;
};
uint64_t hypo_rng_next(struct hypo_rng *r);

/*
 * Percentile bootstrap of the ratio median(b) / median(a): @rounds
 * resamples of both samples with replacement. Sets [*@lo, *@hi] to the
 * central (1 - @alpha) interval. A resample whose baseline median is 0
 * counts as +inf when its target median is positive and as 1 when both
 * are 0, so *@hi may be +inf while *@lo stays finite. Both NaN when a
 * sample is empty.
 */
void hypo_bootstrap_median_ratio(const double *a, size_t na, const double *b, size_t nb,
				 unsigned rounds, double alpha, uint64_t seed, double *lo,
				 double *hi);

#endif
