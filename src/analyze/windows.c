/* Symmetric window weights, after the definitions in scipy.signal.windows. */
#include <math.h>
#include <string.h>

#include "analyze/windows.h"

#define PI 3.14159265358979323846

const char *const window_types[] = {
	"boxcar", "triang",	    "blackman", "hamming",  "bartlett", "parzen",
	"bohman", "blackmanharris", "nuttall",	"barthann", NULL,
};

bool window_known(const char *name)
{
	for (const char *const *t = window_types; *t; t++)
		if (strcmp(*t, name) == 0)
			return true;
	return false;
}

/* sum_j a[j] cos(j x), x running evenly from -pi to pi (scipy's general_cosine). */
static void general_cosine(const double *a, size_t na, size_t m, size_t from, size_t to, double *w)
{
	for (size_t k = from; k < to; k++) {
		double x = -PI + 2 * PI * (double)k / (double)(m - 1);

		w[k - from] = 0;
		for (size_t j = 0; j < na; j++)
			w[k - from] += a[j] * cos((double)j * x);
	}
}

static double triang(size_t k, size_t m)
{
	double n = (double)(k < m - 1 - k ? k : m - 1 - k) + 1;

	return m % 2 ? 2 * n / ((double)m + 1) : (2 * n - 1) / (double)m;
}

static double bartlett(size_t k, size_t m)
{
	double t = 2 * (double)k / (double)(m - 1);

	return (double)k <= (double)(m - 1) / 2 ? t : 2 - t;
}

static double parzen(size_t k, size_t m)
{
	double t = fabs((double)k - (double)(m - 1) / 2), r = t / ((double)m / 2);

	if (t <= (double)(m - 1) / 4)
		return 1 - 6 * r * r + 6 * r * r * r;
	return 2 * pow(1 - r, 3);
}

static double bohman(size_t k, size_t m)
{
	double f = fabs(-1 + 2 * (double)k / (double)(m - 1));

	if (k == 0 || k == m - 1)
		return 0;
	return (1 - f) * cos(PI * f) + sin(PI * f) / PI;
}

static double barthann(size_t k, size_t m)
{
	double f = fabs((double)k / (double)(m - 1) - 0.5);

	return 0.62 - 0.48 * f + 0.38 * cos(2 * PI * f);
}

static const double blackman_a[] = {0.42, 0.50, 0.08};
static const double hamming_a[] = {0.54, 0.46};
static const double blackmanharris_a[] = {0.35875, 0.48829, 0.14128, 0.01168};
static const double nuttall_a[] = {0.3635819, 0.4891775, 0.1365995, 0.0106411};

#define COSINE(name, a)                                                                            \
	if (strcmp(t, name) == 0) {                                                                \
		general_cosine(a, sizeof(a) / sizeof(a[0]), m, from, to, w);                       \
		return;                                                                            \
	}

void window_weights(const char *t, size_t m, size_t from, size_t to, double *w)
{
	double (*f)(size_t, size_t) = NULL;

	if (m == 1 || strcmp(t, "boxcar") == 0) { /* scipy: one point weighs 1 */
		for (size_t k = from; k < to; k++)
			w[k - from] = 1;
		return;
	}
	COSINE("blackman", blackman_a)
	COSINE("hamming", hamming_a)
	COSINE("blackmanharris", blackmanharris_a)
	COSINE("nuttall", nuttall_a)
	if (strcmp(t, "triang") == 0)
		f = triang;
	else if (strcmp(t, "bartlett") == 0)
		f = bartlett;
	else if (strcmp(t, "parzen") == 0)
		f = parzen;
	else if (strcmp(t, "bohman") == 0)
		f = bohman;
	else
		f = barthann;
	for (size_t k = from; k < to; k++)
		w[k - from] = f(k, m);
}
