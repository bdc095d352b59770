/*
 * moving-average: smooths each uid's points (sorted by x) with a rolling
 * mean (sma), a rolling median (smm) or an exponentially weighted mean
 * (ema), as pandas' rolling() and ewm() compute them, and writes the curve
 * as a "moving_average" model (docs/postprocess/moving-average.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/postproc.h"
#include "analyze/series.h"
#include "analyze/smooth.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/optparse.h"

/* ---- window weights, as scipy.signal.windows defines them (symmetric) ---- */

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

/* ---- rolling means and medians, and the exponentially weighted mean ---- */

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

/* ---- the postprocessor ---- */

#define NAME "moving-average"

struct ma_opts {
	struct series_keys keys;
	char method[8]; /* sma, smm, ema */
	size_t width;	/* 0: a tenth of the points, at least 3 */
	bool center;
	size_t min_periods; /* 0: 1 */
	char window_type[16];
	char decay[16];	    /* com, span, halflife, alpha */
	double decay_value; /* NAN: the window width as a span */
};

static void ma_free(void *opts)
{
	struct ma_opts *o = opts;

	if (!o)
		return;
	series_keys_free(&o->keys);
	free(o);
}

static int ma_size(const char *opt, const char *arg, size_t min, size_t *out)
{
	double v;

	if (pp_parse_double(NAME, opt, arg, &v) < 0)
		return ERR_INVALID;
	if (v != floor(v) || v < (double)min || v > 1e9)
		return err_set(ERR_INVALID,
			       "postprocess " NAME ": %s wants a whole number >= %zu, not '%s'",
			       opt, min, arg);
	*out = (size_t)v;
	return 0;
}

static int ma_choice(const char *opt, const char *arg, const char *const *allowed, char *out,
		     size_t size)
{
	for (const char *const *a = allowed; *a; a++) {
		if (strcmp(*a, arg) == 0) {
			snprintf(out, size, "%s", arg);
			return 0;
		}
	}
	return err_set(ERR_INVALID, "postprocess " NAME ": unknown %s '%s'", opt, arg);
}

static const char *const methods[] = {"sma", "smm", "ema", NULL};
static const char *const decays[] = {"com", "span", "halflife", "alpha", NULL};

/* One callback for the options that need checking, told apart by name. */
static int ma_option(void *ctx, const struct opt *opt, const char *arg)
{
	struct ma_opts *o = ctx;
	const char *name = opt->long_name;

	if (strcmp(name, "method") == 0)
		return ma_choice("--method", arg, methods, o->method, sizeof(o->method));
	if (strcmp(name, "window-width") == 0)
		return ma_size("--window-width", arg, 1, &o->width);
	if (strcmp(name, "center") == 0 || strcmp(name, "no-center") == 0) {
		o->center = name[0] == 'c';
		return 0;
	}
	if (strcmp(name, "min-periods") == 0)
		return ma_size("--min-periods", arg, 0, &o->min_periods);
	if (strcmp(name, "window-type") == 0)
		return ma_choice("--window-type", arg, window_types, o->window_type,
				 sizeof(o->window_type));
	if (strcmp(name, "decay") == 0)
		return ma_choice("--decay", arg, decays, o->decay, sizeof(o->decay));
	return pp_parse_double(NAME, "--decay-value", arg, &o->decay_value);
}

/* Perun's words: the method (moving_average ema) and --decay KIND VALUE's
 * value. */
static int ma_operands(struct ma_opts *o, bool decay, int nop, char **ops)
{
	for (int i = 0; i < nop; i++) {
		char *end;

		if (ma_choice("method", ops[i], methods, o->method, sizeof(o->method)) == 0)
			continue;
		if (decay && isnan(o->decay_value) &&
		    (strtod(ops[i], &end), end != ops[i] && !*end)) {
			if (pp_parse_double(NAME, "--decay", ops[i], &o->decay_value) < 0)
				return ERR_INVALID;
			continue;
		}
		return err_set(ERR_INVALID, "postprocess " NAME ": unexpected argument '%s'",
			       ops[i]);
	}
	return 0;
}

/* alpha from the decay, with pandas' bounds on each parameter. */
static int ma_alpha(const char *decay, double v, double *alpha)
{
	if (strcmp(decay, "com") == 0 && v >= 0)
		*alpha = 1 / (1 + v);
	else if (strcmp(decay, "span") == 0 && v >= 1)
		*alpha = 2 / (v + 1);
	else if (strcmp(decay, "halflife") == 0 && v > 0)
		*alpha = 1 - exp(-log(2) / v);
	else if (strcmp(decay, "alpha") == 0 && v > 0 && v <= 1)
		*alpha = v;
	else
		return err_set(ERR_INVALID,
			       "postprocess " NAME
			       ": --decay-value %g is out of range for --decay %s "
			       "(com >= 0, span >= 1, halflife > 0, 0 < alpha <= 1)",
			       v, decay);
	return 0;
}

static int ma_check(const struct ma_opts *o)
{
	double alpha;

	if (o->width && o->min_periods > o->width)
		return err_set(ERR_INVALID,
			       "postprocess " NAME ": --min-periods %zu exceeds --window-width %zu",
			       o->min_periods, o->width);
	if (isnan(o->decay_value) && strcmp(o->decay, "span") != 0)
		return err_set(ERR_INVALID, "postprocess " NAME ": --decay %s needs --decay-value",
			       o->decay);
	if (!isnan(o->decay_value))
		return ma_alpha(o->decay, o->decay_value, &alpha);
	return 0;
}

static int ma_parse(int argc, char **argv, void **out, char **help)
{
	struct ma_opts *o = xcalloc(1, sizeof(*o));
	struct opt keys[SERIES_KEYS_NOPTS];
	const struct opt opts[] = {
		OPT_CALLBACK(0, "method", "sma|smm|ema", ma_option,
			     "rolling mean, rolling median or exponentially\n"
			     "weighted mean (default: sma); the word alone works too"),
		OPT_CALLBACK(0, "window-width", "N", ma_option,
			     "points per window (sma, smm; default: a tenth of\n"
			     "the uid's points, at least 3)"),
		OPT_FLAG_CALLBACK(0, "center", ma_option,
				  "centre the window on its point (the default)"),
		OPT_FLAG_CALLBACK(0, "no-center", ma_option, "end the window at its point"),
		OPT_CALLBACK(0, "min-periods", "N", ma_option,
			     "fewer points in a window give no value (default: 1)"),
		OPT_CALLBACK(0, "window-type", "T", ma_option,
			     "sma weights: boxcar (default), triang, blackman,\n"
			     "hamming, bartlett, parzen, bohman, blackmanharris,\n"
			     "nuttall, barthann"),
		OPT_CALLBACK('d', "decay", "com|span|halflife|alpha", ma_option,
			     "how --decay-value gives ema's alpha (default: span);\n"
			     "Perun's --decay KIND VALUE works too"),
		OPT_CALLBACK(0, "decay-value", "V", ma_option,
			     "(default: the window width as a span)"),
		OPT_INCLUDE(keys),
		OPT_DASH_ALIAS("ww", "window-width"),
		OPT_DASH_ALIAS("wt", "window-type"),
		OPT_DASH_ALIAS("mp", "min-periods"),
		OPT_END(),
	};
	const struct postproc_options po = {
		.usage = "veles postprocess PROFILE moving-average [OPTIONS]",
		.about = "Smooths the points of each uid, sorted by --per, with a moving average.",
		.opts = opts,
		.ctx = o,
		.operands = true,
	};
	int nop, ret;

	series_keys_init(&o->keys);
	series_keys_table(&o->keys, keys);
	snprintf(o->method, sizeof(o->method), "sma");
	snprintf(o->window_type, sizeof(o->window_type), "boxcar");
	o->center = true;
	o->decay_value = NAN;
	*out = NULL;
	*help = NULL;
	ret = postproc_parse_options(NAME, &po, argc, argv, &nop, help);
	if (ret == 0 && !*help)
		ret = ma_operands(o, o->decay[0] != 0, nop, argv + 1);
	if (!o->decay[0])
		snprintf(o->decay, sizeof(o->decay), "span");
	if (ret == 0 && !*help) {
		series_keys_take(&o->keys);
		ret = ma_check(o);
	}
	if (ret < 0 || *help) {
		ma_free(o);
		return ret;
	}
	*out = o;
	return 0;
}

static char *ma_params(const void *opts)
{
	const struct ma_opts *o = opts;
	struct buf b = BUF_INIT;
	bool first = true;

	buf_addc(&b, '{');
	pp_json_str(&b, &first, "method", o->method);
	if (o->width)
		pp_json_num(&b, &first, "window_width", (double)o->width);
	else
		pp_json_str(&b, &first, "window_width", NULL);
	pp_json_bool(&b, &first, "center", o->center);
	pp_json_num(&b, &first, "min_periods", (double)(o->min_periods ? o->min_periods : 1));
	pp_json_str(&b, &first, "window_type", o->window_type);
	pp_json_str(&b, &first, "decay", o->decay);
	pp_json_num(&b, &first, "decay_value", o->decay_value);
	series_keys_json(&o->keys, &b, &first);
	buf_addc(&b, '}');
	return buf_detach(&b, NULL);
}

/* The documented default: a tenth of the points, at least 3, at most all. */
static size_t ma_width(const struct ma_opts *o, size_t n)
{
	size_t w = (n + 9) / 10;

	if (o->width)
		return o->width;
	if (w < 3)
		w = 3;
	return w < n ? w : n;
}

static int ma_one(const void *opts, const struct series *s, struct buf *models, struct buf *m)
{
	const struct ma_opts *o = opts;

	double *fit = xmalloc(s->n * sizeof(*fit)), alpha;
	size_t width = ma_width(o, s->n);
	bool first = false;

	model_begin(m, s, &o->keys, "moving_average", o->method, s->x[0], s->x[s->n - 1]);
	if (strcmp(o->method, "ema") == 0) {
		double v = isnan(o->decay_value) ? (double)width : o->decay_value;

		ma_alpha(o->decay, v, &alpha);
		smooth_ema(s->y, s->n, alpha, o->min_periods, fit);
		pp_json_str(m, &first, "decay", o->decay);
		pp_json_num(m, &first, "decay_value", v);
		pp_json_num(m, &first, "alpha", alpha);
	} else {
		if (strcmp(o->method, "sma") == 0)
			smooth_sma(s->y, s->n, width, o->center, o->min_periods, o->window_type,
				   fit);
		else
			smooth_smm(s->y, s->n, width, o->center, o->min_periods, fit);
		pp_json_num(m, &first, "window_width", (double)width);
		if (strcmp(o->method, "sma") == 0)
			pp_json_str(m, &first, "window_type", o->window_type);
		pp_json_bool(m, &first, "center", o->center);
	}
	pp_json_num(m, &first, "min_periods", (double)(o->min_periods ? o->min_periods : 1));
	model_end(models, m, s->x, fit, s->n, series_r_square(s->y, fit, s->n));
	free(fit);
	return 0;
}

static int ma_run(struct profile *p, const void *opts, const struct postproc_env *env)
{
	const struct ma_opts *o = opts;

	UNUSED(env);
	return series_run_each(p, &o->keys, NAME, ma_one, opts);
}

const struct postproc pp_moving_average = {
	.name = NAME,
	.summary = "smooth each uid's points with a moving average (sma, smm, ema)",
	.parse = ma_parse,
	.params_json = ma_params,
	.run = ma_run,
	.free_opts = ma_free,
};
