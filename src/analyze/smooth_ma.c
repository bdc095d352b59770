/* Rolling means and medians and the exponentially weighted mean. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/smooth.h"
#include "analyze/windows.h"
#include "util/common.h"

/* Point i's window is [i - left, i + right] clipped to the data. */
static size_t right_of(size_t width, bool center)
{
	return center ? (width - 1) / 2 : 0;
}

/* Boxcar: window sums from prefix sums, O(n) whatever the width. */
static void sma_boxcar(const double *y, size_t n, size_t width, bool center, size_t minp,
		       double *out)
{
	long double *pre = xmalloc((n + 1) * sizeof(*pre));
	size_t right = right_of(width, center), left = width - 1 - right;

	pre[0] = 0;
	for (size_t i = 0; i < n; i++)
		pre[i + 1] = pre[i] + y[i];
	for (size_t i = 0; i < n; i++) {
		size_t lo = i > left ? i - left : 0, hi = i + right < n ? i + right + 1 : n;

		out[i] = hi - lo >= minp ? (double)((pre[hi] - pre[lo]) / (long double)(hi - lo))
					 : NAN;
	}
	free(pre);
}

void smooth_sma(const double *y, size_t n, size_t width, bool center, size_t min_periods,
		const char *win_type, double *out)
{
	size_t right = right_of(width, center), left = width - 1 - right;
	size_t minp = min_periods ? min_periods : 1;
	double *w;

	if (n == 0)
		return;
	if (strcmp(win_type, "boxcar") == 0) {
		sma_boxcar(y, n, width, center, minp, out);
		return;
	}
	/* weight k sits on point i - left + k: only k in [kmin, kmax) ever do */
	size_t kmin = left >= n ? left - (n - 1) : 0, kmax = left + n < width ? left + n : width;

	w = xmalloc((kmax - kmin + 1) * sizeof(*w));
	window_weights(win_type, width, kmin, kmax, w);
	for (size_t i = 0; i < n; i++) {
		double sum = 0, wsum = 0;
		size_t cnt = 0;

		for (size_t k = i >= left ? 0 : left - i; k < width && i + k - left < n; k++) {
			sum += w[k - kmin] * y[i + k - left];
			wsum += w[k - kmin];
			cnt++;
		}
		out[i] = cnt >= minp ? sum / wsum : NAN;
	}
	free(w);
}

/* A sorted multiset of the window's values. */
static size_t lower_bound(const double *v, size_t n, double x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void sorted_insert(double *v, size_t *n, double x)
{
	size_t at = lower_bound(v, *n, x);

	memmove(v + at + 1, v + at, (*n - at) * sizeof(*v));
	v[at] = x;
	(*n)++;
}

static void sorted_remove(double *v, size_t *n, double x)
{
	size_t at = lower_bound(v, *n, x);

	memmove(v + at, v + at + 1, (*n - at - 1) * sizeof(*v));
	(*n)--;
}

void smooth_smm(const double *y, size_t n, size_t width, bool center, size_t min_periods,
		double *out)
{
	size_t right = right_of(width, center), left = width - 1 - right;
	size_t minp = min_periods ? min_periods : 1, cnt = 0, a = 0, b = 0; /* window [a, b) */
	double *win = xmalloc(((width < n ? width : n) + 1) * sizeof(*win));

	for (size_t i = 0; i < n; i++) {
		size_t lo = i > left ? i - left : 0, hi = i + right < n ? i + right + 1 : n;

		for (; a < lo; a++)
			if (a < b)
				sorted_remove(win, &cnt, y[a]);
		if (b < a)
			b = a;
		for (; b < hi; b++)
			sorted_insert(win, &cnt, y[b]);
		if (cnt < minp)
			out[i] = NAN;
		else
			out[i] = cnt % 2 ? win[cnt / 2] : (win[cnt / 2 - 1] + win[cnt / 2]) / 2;
	}
	free(win);
}

void smooth_ema(const double *y, size_t n, double alpha, size_t min_periods, double *out)
{
	double num = 0, den = 0;

	for (size_t i = 0; i < n; i++) {
		num = y[i] + (1 - alpha) * num;
		den = 1 + (1 - alpha) * den;
		out[i] = i + 1 >= min_periods ? num / den : NAN;
	}
}
