/*
 * Change points in a series of measurements (one value per version): where
 * did performance shift? PELT (Killick, Fearnhead and Eckley, 2012) with
 * the normal mean-change cost and a BIC-style penalty scaled by a robust
 * estimate of the noise, as MongoDB's and asv's step detection do.
 */
#ifndef ANALYZE_CHANGEPOINT_H
#define ANALYZE_CHANGEPOINT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Marks @is_change[i] when a new segment starts at y[i] (i >= 1) and the
 * means of the segments on either side differ by at least @min_step.
 * Segments hold at least two values, except that any single value may
 * stand alone at twice the penalty, so a step into a lone value and the
 * step out of it are judged alike (a series shorter than three has one
 * segment). Returns the number of change points. The penalty is
 * 2 sigma^2 ln n, sigma the larger of changepoint_noise(y) and
 * @sigma_floor (what the caller knows of the noise of each value, e.g.
 * from repeated runs). Series of run times should come in log space, where
 * noise is relative. When @fit is not NULL, fit[i] is the mean of y[i]'s
 * segment: the step at a change point i is fit[i] - fit[i - 1], the very
 * difference compared with @min_step.
 */
size_t changepoint_pelt(const double *y, size_t n, double sigma_floor, double min_step,
			bool *is_change, double *fit);

/* sigma of the noise, from the median absolute first difference: robust to
 * the steps themselves. 0 for fewer than 3 values. */
double changepoint_noise(const double *y, size_t n);

#endif
