/*
 * Descriptive statistics of a sample of measurements: what the time
 * collector's summary prints and what the analysis compares.
 */
#ifndef ANALYZE_STATS_H
#define ANALYZE_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct stats {
	size_t n;
	double mean;
	double stddev; /* sample (n - 1); 0 when n < 2 */
	double min, max;
	double median;
	double q1, q3; /* quartiles, linear interpolation between closest ranks */
	double mad;    /* median absolute deviation from the median, unscaled */
	size_t noutliers;
};

/* Fills @s from @x (left unchanged); all zero for n == 0. */
void stats_compute(const double *x, size_t n, struct stats *s);

double stats_mean(const double *x, size_t n);
double stats_stddev(const double *x, size_t n);
/*
 * The median: the middle value, or the midpoint of the two middle ones;
 * 0 for n == 0. Of sorted @x; of @x sorted in place; of a copy of @x.
 */
double stats_median_sorted(const double *x, size_t n);
double stats_median_sort(double *x, size_t n);
double stats_median(const double *x, size_t n);
/* The @q quantile (0..1) of sorted @x, as R's type 7 and numpy's default;
 * an infinite neighbour is returned as is, never interpolated into NaN. */
double stats_quantile_sorted(const double *x, size_t n, double q);
double stats_mad(const double *x, size_t n);

/*
 * Outliers by the modified Z-score of Iglewicz and Hoaglin:
 * |0.6745 (x - median) / MAD| > 3.5. When the MAD is 0 (more than half the
 * values equal) the mean absolute deviation stands in, scaled by 0.7979 as
 * they suggest; when that is 0 too, every value is the median and none is
 * an outlier. Marks @is_outlier (may be NULL) and returns the count.
 */
size_t stats_outliers(const double *x, size_t n, bool *is_outlier);

#endif
