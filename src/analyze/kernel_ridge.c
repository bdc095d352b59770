/*
 * Perun's kernel-ridge mode of kernel regression: a Nadaraya-Watson fit
 * with the Gaussian kernel exp(-gamma (x - x')^2), gamma chosen from
 * numpy.arange(LO, HI, STEP) as the one of least mean squared
 * leave-one-out error (perun/postprocess/kernel_regression/methods.py,
 * KernelRidge._optimize_gamma, written again here from its definition).
 */
#include <math.h>
#include <stdlib.h>

#include "analyze/smooth.h"
#include "util/common.h"

/* exp(-745) is the last double above 0: farther points weigh nothing,
 * in numpy's sums as in ours. */
#define RIDGE_UNDERFLOW 745.0

size_t kernel_ridge_grid(double lo, double hi, double step, double **out)
{
	double span = (hi - lo) / step;
	size_t n = span > 0 ? (size_t)ceil(span) : 0;

	*out = xmalloc((n + 1) * sizeof(**out));
	for (size_t i = 0; i < n; i++)
		(*out)[i] = lo + (double)i * step;
	return n;
}

/*
 * Mean over every point of (fit at its x without it - its y)^2. The
 * points sharing an x are summed once: with O and T the kernel-weighted
 * count and sum of the points at other x, and c, m, q the count, mean and
 * squared deviations of the points at this x, the fit without point i is
 * (c m + T - y_i) / (c - 1 + O), its error (T - O m - (c + O)(y_i - m))
 * / (c - 1 + O), and the c errors add up to (c (T - O m)^2 + (c + O)^2 q)
 * / (c - 1 + O)^2. Kept apart from the point's own weight, O loses nothing
 * to rounding however far the others are, as numpy's sums with the
 * diagonal zeroed do not. NaN when some point has no other in reach
 * (Perun's 0 / 0).
 */
double kernel_ridge_loo_mse(const struct kpoints *k, double gamma)
{
	double reach = sqrt(RIDGE_UNDERFLOW / gamma), total = 0, npts = 0;
	size_t lo = 0, hi = 0;

	for (size_t j = 0; j < k->m; j++) {
		double o = 0, t = 0, c = k->cnt[j], m = k->sum[j] / c, d, e;

		while (k->x[j] - k->x[lo] > reach)
			lo++;
		while (hi < k->m && k->x[hi] - k->x[j] <= reach)
			hi++;
		for (size_t i = lo; i < hi; i++) {
			double dx = k->x[i] - k->x[j], w = i == j ? 0 : exp(-gamma * dx * dx);

			o += k->cnt[i] * w;
			t += k->sum[i] * w;
		}
		d = c - 1 + o;
		if (d == 0)
			return NAN;
		e = t - o * m;
		total += (c * e * e + (c + o) * (c + o) * k->sq[j]) / (d * d);
		npts += c;
	}
	return npts ? total / npts : NAN;
}

double kernel_ridge_gamma(const struct kpoints *k, const double *grid, size_t n)
{
	double best = NAN;
	size_t at = 0;

	/* numpy's nanargmin: the first least; all NaN: the first gamma. */
	for (size_t i = 0; i < n; i++) {
		double mse = kernel_ridge_loo_mse(k, grid[i]);

		if (!isnan(mse) && (isnan(best) || mse < best)) {
			best = mse;
			at = i;
		}
	}
	return grid[at];
}
