/* Regressogram buckets with numpy.histogram_bin_edges' estimators. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/smooth.h"
#include "analyze/stats.h"
#include "util/common.h"

#define PI 3.14159265358979323846

/* Population standard deviation (numpy's np.std default, ddof 0). */
static double pstd(const double *x, size_t n, double *mean)
{
	double m = stats_mean(x, n), ss = 0;

	for (size_t i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	*mean = m;
	return sqrt(ss / (double)n);
}

static double width_fd(const double *x, size_t n)
{
	double iqr = stats_quantile_sorted(x, n, 0.75) - stats_quantile_sorted(x, n, 0.25);

	return 2.0 * iqr * pow((double)n, -1.0 / 3.0);
}

static double width_doane(const double *x, size_t n, double ptp)
{
	double mean, sigma, g1 = 0, sg1;

	if (n <= 2)
		return 0;
	sigma = pstd(x, n, &mean);
	if (sigma <= 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		g1 += pow((x[i] - mean) / sigma, 3);
	g1 /= (double)n;
	sg1 = sqrt(6.0 * ((double)n - 2) / (((double)n + 1) * ((double)n + 3)));
	return ptp / (1.0 + log2((double)n) + log2(1.0 + fabs(g1) / sg1));
}

/* The bucket width estimator @method gives for sorted @x (numpy's _hist_bin_*). */
static double bucket_width(const double *x, size_t n, const char *method)
{
	double ptp = x[n - 1] - x[0], dn = (double)n, mean;
	double sturges = ptp / (log2(dn) + 1.0);

	if (strcmp(method, "sqrt") == 0)
		return ptp / sqrt(dn);
	if (strcmp(method, "sturges") == 0)
		return sturges;
	if (strcmp(method, "rice") == 0)
		return ptp / (2.0 * pow(dn, 1.0 / 3.0));
	if (strcmp(method, "scott") == 0)
		return pow(24.0 * sqrt(PI) / dn, 1.0 / 3.0) * pstd(x, n, &mean);
	if (strcmp(method, "fd") == 0)
		return width_fd(x, n);
	if (strcmp(method, "doane") == 0)
		return width_doane(x, n, ptp);
	/* auto: the narrower of fd and sturges, sturges alone when fd is 0 */
	double fd = width_fd(x, n);

	return fd > 0 && fd < sturges ? fd : sturges;
}

size_t regressogram_edges(const double *x, size_t n, const char *method, size_t nbuckets,
			  double **edges)
{
	double first = x[0], last = x[n - 1], *e;

	if (first == last) { /* numpy widens an empty range by 0.5 each way */
		first -= 0.5;
		last += 0.5;
	}
	if (method) {
		double w = bucket_width(x, n, method), nb = w > 0 ? ceil((last - first) / w) : 1;

		if (!(nb <= REGRESSOGRAM_MAX_BUCKETS))
			return 0;
		nbuckets = (size_t)nb;
	}
	if (nbuckets < 1)
		nbuckets = 1;
	e = xmalloc((nbuckets + 1) * sizeof(*e));
	for (size_t i = 0; i < nbuckets; i++)
		e[i] = first + (double)i * ((last - first) / (double)nbuckets);
	e[nbuckets] = last;
	*edges = e;
	return nbuckets;
}

size_t regressogram_bucket(const double *edges, size_t nb, double v)
{
	double f = (v - edges[0]) / (edges[nb] - edges[0]) * (double)nb;
	size_t i = f <= 0 ? 0 : f >= (double)nb ? nb - 1 : (size_t)f;

	/* the float guess may land one off near an edge: correct against edges */
	if (i > 0 && v < edges[i])
		i--;
	if (i + 1 < nb && v >= edges[i + 1])
		i++;
	return i;
}
