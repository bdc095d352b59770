/*
 * The numerical cores of the smoothing postprocessors (each defined in its
 * postprocessor's file: moving_average.c, regressogram.c,
 * kernel_regression.c), apart from options and profiles so unit tests can
 * check them against hand-worked values.
 * Inputs are in ascending x; an output of NaN means "no value here" (too
 * few points in the window).
 */
#ifndef ANALYZE_SMOOTH_H
#define ANALYZE_SMOOTH_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Window weights of the moving average's --window-type, defined as
 * scipy.signal.windows defines them in their symmetric form (what pandas'
 * rolling(win_type=...) uses). window_types lists their names,
 * NULL-terminated, boxcar first.
 */
extern const char *const window_types[];

bool window_known(const char *name);
/* Fills @w[0..to-from-1] with weights @from..@to-1 of window @name of
 * @m points (name must be known): a window far wider than the data needs
 * only the weights that land on it. */
void window_weights(const char *name, size_t m, size_t from, size_t to, double *w);

/*
 * Rolling mean (pandas' rolling(width, center, min_periods, win_type)
 * .mean()): point i's window is [i - left, i + right], right = (width-1)/2
 * when centred and 0 otherwise; weights @win_type (window_weights()), each
 * window divided by the weights of the points it actually holds.
 */
void smooth_sma(const double *y, size_t n, size_t width, bool center, size_t min_periods,
		const char *win_type, double *out);
/* Rolling median over the same windows (pandas' rolling().median()). */
void smooth_smm(const double *y, size_t n, size_t width, bool center, size_t min_periods,
		double *out);
/* Exponentially weighted mean with adjusted weights (pandas' ewm(alpha,
 * adjust=True).mean()): sum (1-alpha)^k y[i-k] / sum (1-alpha)^k. */
void smooth_ema(const double *y, size_t n, double alpha, size_t min_periods, double *out);

/*
 * Regressogram buckets: the edges numpy.histogram_bin_edges(x, METHOD)
 * gives for sorted @x (METHOD one of auto doane fd rice scott sqrt
 * sturges), or @nbuckets equal buckets when @method is NULL. Returns the
 * number of buckets; *@edges (malloc'd) holds that many plus one. Returns
 * 0 (and allocates nothing) when @method asks for more than
 * REGRESSOGRAM_MAX_BUCKETS, as fd does for a few far outliers.
 */
#define REGRESSOGRAM_MAX_BUCKETS 10000000
size_t regressogram_edges(const double *x, size_t n, const char *method, size_t nbuckets,
			  double **edges);
/* The bucket of @v among @nb buckets, as numpy.histogram assigns it. */
size_t regressogram_bucket(const double *edges, size_t nb, double v);

/* Kernel regression. */
enum kernel { KERNEL_NORMAL, KERNEL_EPANECHNIKOV, KERNEL_TRICUBE };
/* Scott's (1.059) or Silverman's (0.9) rule, as statsmodels' bw_scott and
 * bw_silverman: factor * min(sd, IQR / 1.349) * n^(-1/5). */
double kernel_rule_bandwidth(const double *x, size_t n, double factor);

/* Points aggregated by distinct x: count and sum of y, and the sum of
 * squared deviations of y from its mean at that x. */
struct kpoints {
	double *x, *cnt, *sum, *sq;
	size_t m;
};
void kpoints_build(const double *x, const double *y, size_t n, struct kpoints *k);
void kpoints_free(struct kpoints *k);
/* @k merged into @nbins equal-width bins of x, each at the mean x of its
 * points: what cross-validation scores when there are many distinct x. */
void kpoints_bin(const struct kpoints *k, size_t nbins, struct kpoints *out);
/* The fitted value at each of @at[0..na-1] (ascending), local linear or
 * Nadaraya-Watson (@local_linear false). */
void kernel_fit(const struct kpoints *k, enum kernel kern, double h, bool local_linear,
		const double *at, size_t na, double *out);
/* Leave-one-out least squares: sum of (y_i - fit without point i at x_i)^2. */
double kernel_cv_score(const struct kpoints *k, enum kernel kern, double h, bool local_linear);
/* The bandwidth minimising kernel_cv_score, searched around @h0. */
double kernel_cv_bandwidth(const struct kpoints *k, enum kernel kern, double h0, bool local_linear);

/*
 * Perun's kernel-ridge (kernel_ridge.c): numpy.arange(@lo, @hi, @step) in
 * *@out (malloc'd), its length returned; the mean squared leave-one-out
 * error of the Gaussian Nadaraya-Watson fit exp(-gamma d^2) (NaN when a
 * point has no other in reach); and the gamma of @grid with the least of
 * it (the first when none has one).
 */
size_t kernel_ridge_grid(double lo, double hi, double step, double **out);
double kernel_ridge_loo_mse(const struct kpoints *k, double gamma);
double kernel_ridge_gamma(const struct kpoints *k, const double *grid, size_t n);

#endif
