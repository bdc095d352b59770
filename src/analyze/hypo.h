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

/*
 * Tests stratified by size: a workload generator's profile holds repeated
 * runs at each of several sizes, and sizes differ in time far more than
 * runs do, so the samples are compared size by size and the comparisons
 * combined. One stratum: the baseline's and the target's values at one size.
 */
struct hypo_stratum {
	const double *a, *b;
	size_t na, nb;
};

/*
 * van Elteren's test: Mann-Whitney within each stratum, the deviations of U
 * from its mean weighted by 1 / (n + 1) (n the stratum's values) and
 * summed, two-sided p from the normal approximation with each stratum's
 * ties corrected. 1 when no stratum has values on both sides.
 */
double hypo_van_elteren(const struct hypo_stratum *s, size_t k);

/* Welch's t within each stratum, combined by Stouffer's method (signed z of
 * each one-sided p, weighted by the square root of the stratum's values). */
double hypo_welch_strata(const struct hypo_stratum *s, size_t k);

/*
 * Percentile bootstrap of the geometric mean over strata of median(b) /
 * median(a), each stratum resampled on its own (a stratified bootstrap).
 * As hypo_bootstrap_median_ratio() otherwise; NaN when a stratum is empty.
 */
void hypo_bootstrap_strata_ratio(const struct hypo_stratum *s, size_t k, unsigned rounds,
				 double alpha, uint64_t seed, double *lo, double *hi);

#endif
