/*
 * kernel-regression: a kernel-weighted fit of each uid's points, local
 * linear or Nadaraya-Watson, as statsmodels' KernelReg computes it, or in
 * Perun's kernel-ridge mode (kernel_ridge.c), written as a "kernel" model
 * (docs/postprocess/kernel-regression.md).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/postproc.h"
#include "analyze/series.h"
#include "analyze/smooth.h"
#include "analyze/stats.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/optparse.h"

/*
 * Kernel regression at given points: Nadaraya-Watson (a kernel-weighted
 * mean) or local linear (the intercept of a kernel-weighted line through
 * the neighbours), as statsmodels' KernelReg 'lc' and 'll'. Points are
 * aggregated by distinct x first and only those within the kernel's
 * support are visited (the normal kernel is cut at 8 bandwidths, where its
 * weight, 1.3e-14, no longer moves a result at 1e-6), so a fit costs
 * O(points evaluated x neighbours each).
 */

#define NORMAL_CUTOFF 8.0

void kpoints_build(const double *x, const double *y, size_t n, struct kpoints *k)
{
	size_t m = 0;

	k->x = xmalloc((n + 1) * sizeof(*k->x));
	k->cnt = xmalloc((n + 1) * sizeof(*k->cnt));
	k->sum = xmalloc((n + 1) * sizeof(*k->sum));
	k->sq = xmalloc((n + 1) * sizeof(*k->sq));
	for (size_t i = 0; i < n; i++) {
		if (m == 0 || x[i] != k->x[m - 1]) {
			k->x[m] = x[i];
			k->cnt[m] = k->sum[m] = k->sq[m] = 0;
			m++;
		}
		/* Welford: squared deviations from the group's running mean */
		double before = k->cnt[m - 1] ? k->sum[m - 1] / k->cnt[m - 1] : 0;

		k->cnt[m - 1] += 1;
		k->sum[m - 1] += y[i];
		k->sq[m - 1] += (y[i] - before) * (y[i] - k->sum[m - 1] / k->cnt[m - 1]);
	}
	k->m = m;
}

void kpoints_bin(const struct kpoints *k, size_t nbins, struct kpoints *out)
{
	double lo = k->x[0], width = (k->x[k->m - 1] - lo) / (double)nbins, xsum = 0;
	size_t m = 0, cur = SIZE_MAX;

	out->x = xmalloc((nbins + 1) * sizeof(*out->x));
	out->cnt = xmalloc((nbins + 1) * sizeof(*out->cnt));
	out->sum = xmalloc((nbins + 1) * sizeof(*out->sum));
	out->sq = xmalloc((nbins + 1) * sizeof(*out->sq));
	for (size_t j = 0; j < k->m; j++) {
		size_t b = width > 0 ? (size_t)((k->x[j] - lo) / width) : 0;
		double na, nb, delta;

		if (b >= nbins)
			b = nbins - 1;
		if (b != cur) {
			if (m)
				out->x[m - 1] = xsum / out->cnt[m - 1];
			out->cnt[m] = out->sum[m] = out->sq[m] = xsum = 0;
			cur = b;
			m++;
		}
		/* pairwise merge of squared deviations (Chan, Golub, LeVeque) */
		na = out->cnt[m - 1];
		nb = k->cnt[j];
		delta = k->sum[j] / nb - (na ? out->sum[m - 1] / na : 0);
		out->sq[m - 1] += k->sq[j] + (na ? delta * delta * na * nb / (na + nb) : 0);
		out->cnt[m - 1] += nb;
		out->sum[m - 1] += k->sum[j];
		xsum += k->x[j] * nb;
	}
	out->x[m - 1] = xsum / out->cnt[m - 1];
	out->m = m;
}

void kpoints_free(struct kpoints *k)
{
	free(k->x);
	free(k->cnt);
	free(k->sum);
	free(k->sq);
}

double kernel_rule_bandwidth(const double *x, size_t n, double factor)
{
	double sd = n > 1 ? stats_stddev(x, n) : 0;
	double iqr =
		(stats_quantile_sorted(x, n, 0.75) - stats_quantile_sorted(x, n, 0.25)) / 1.349;
	double a = iqr > 0 && iqr < sd ? iqr : sd;

	/* one distinct x: any bandwidth gives the mean */
	return a > 0 ? factor * a * pow((double)n, -0.2) : 1.0;
}

static double kernel_support(enum kernel kern)
{
	return kern == KERNEL_NORMAL ? NORMAL_CUTOFF : 1.0;
}

/* The kernel's weight at u = distance / bandwidth; 1 at u = 0 for all. */
static double kernel_weight(enum kernel kern, double u)
{
	double a = fabs(u);

	switch (kern) {
	case KERNEL_EPANECHNIKOV:
		return a <= 1 ? 1 - u * u : 0;
	case KERNEL_TRICUBE:
		return a <= 1 ? pow(1 - a * a * a, 3) : 0;
	default:
		return a <= NORMAL_CUTOFF ? exp(-0.5 * u * u) : 0;
	}
}

/* Weighted sums of the neighbours of @at. */
struct ksums {
	double s0, s1, s2, t0, t1;
};

/* Moves the window [*lo, *hi) of @k to the neighbours of @at, then sums. */
static void ksums_at(const struct kpoints *k, enum kernel kern, double h, double at, size_t *lo,
		     size_t *hi, struct ksums *s)
{
	double r = kernel_support(kern) * h;

	while (*lo < k->m && k->x[*lo] < at - r)
		(*lo)++;
	if (*hi < *lo)
		*hi = *lo;
	while (*hi < k->m && k->x[*hi] <= at + r)
		(*hi)++;
	*s = (struct ksums){0};
	for (size_t j = *lo; j < *hi; j++) {
		double d = k->x[j] - at, w = kernel_weight(kern, d / h);

		s->s0 += w * k->cnt[j];
		s->s1 += w * k->cnt[j] * d;
		s->s2 += w * k->cnt[j] * d * d;
		s->t0 += w * k->sum[j];
		s->t1 += w * k->sum[j] * d;
	}
}

/* The local linear system is singular when the neighbours share one x. */
static bool ll_singular(double s0, double s1, double s2)
{
	double det = s0 * s2 - s1 * s1;

	return !(s2 > 0) || !(fabs(det) > 1e-12 * s0 * s2);
}

void kernel_fit(const struct kpoints *k, enum kernel kern, double h, bool local_linear,
		const double *at, size_t na, double *out)
{
	size_t lo = 0, hi = 0;
	struct ksums s;

	for (size_t i = 0; i < na; i++) {
		ksums_at(k, kern, h, at[i], &lo, &hi, &s);
		if (!(s.s0 > 0))
			out[i] = NAN;
		else if (!local_linear || ll_singular(s.s0, s.s1, s.s2))
			out[i] = s.t0 / s.s0;
		else
			out[i] = (s.s2 * s.t0 - s.s1 * s.t1) / (s.s0 * s.s2 - s.s1 * s.s1);
	}
}

/*
 * Leaving one point (x_j, y) out removes weight 1 at distance 0, so only
 * s0 and t0 change and the fit without it is alpha - beta * y. The
 * residuals (1+beta) y - alpha of group j then sum to (1+beta)^2 ss +
 * cnt ((1+beta) mean - alpha)^2, ss the squared deviations from the
 * group's mean: one pass for all the points sharing x_j, and no
 * cancellation when a small bandwidth makes alpha and beta huge. A point left
 * without neighbours has no fit: that bandwidth scores infinity.
 */
double kernel_cv_score(const struct kpoints *k, enum kernel kern, double h, bool local_linear)
{
	size_t lo = 0, hi = 0;
	double score = 0;
	struct ksums s;

	for (size_t j = 0; j < k->m; j++) {
		double alpha, beta, s0, g;

		ksums_at(k, kern, h, k->x[j], &lo, &hi, &s);
		s0 = s.s0 - 1;
		if (!(s0 > 1e-12 * s.s0))
			return INFINITY;
		if (local_linear && !ll_singular(s0, s.s1, s.s2)) {
			double det = s0 * s.s2 - s.s1 * s.s1;

			alpha = (s.s2 * s.t0 - s.s1 * s.t1) / det;
			beta = s.s2 / det;
		} else {
			alpha = s.t0 / s0;
			beta = 1 / s0;
		}
		g = 1 + beta;
		score += g * g * k->sq[j] + k->cnt[j] * (g * k->sum[j] / k->cnt[j] - alpha) *
						    (g * k->sum[j] / k->cnt[j] - alpha);
	}
	return score;
}

/*
 * A grid of bandwidths from h0/16 to 4 h0 in steps of 2^(1/4), then a
 * golden-section search on log h around the best of them.
 */
double kernel_cv_bandwidth(const struct kpoints *k, enum kernel kern, double h0, bool local_linear)
{
	const double step = log(2) / 4, phi = (sqrt(5) - 1) / 2;
	double best = INFINITY, lb = log(h0), a, b, c, d, fc, fd;

	for (int i = -16; i <= 8; i++) {
		double v = kernel_cv_score(k, kern, h0 * exp(i * step), local_linear);

		if (v < best) {
			best = v;
			lb = log(h0) + i * step;
		}
	}
	if (!isfinite(best))
		return h0;
	a = lb - step;
	b = lb + step;
	c = b - phi * (b - a);
	d = a + phi * (b - a);
	fc = kernel_cv_score(k, kern, exp(c), local_linear);
	fd = kernel_cv_score(k, kern, exp(d), local_linear);
	for (int it = 0; it < 30; it++) {
		if (fc < fd) {
			b = d;
			d = c;
			fd = fc;
			c = b - phi * (b - a);
			fc = kernel_cv_score(k, kern, exp(c), local_linear);
		} else {
			a = c;
			c = d;
			fc = fd;
			d = a + phi * (b - a);
			fd = kernel_cv_score(k, kern, exp(d), local_linear);
		}
	}
	if (fmin(fc, fd) > best) /* not unimodal there: keep the grid's best */
		return exp(lb);
	return exp((a + b) / 2);
}

/* ---- the postprocessor ---- */

#define NAME "kernel-regression"
/* More distinct x than this are fitted on a grid of this many points. */
#define KR_MAX_POINTS 1000
/* Cross-validation scores O(m^2) pairs for m distinct x at wide
 * bandwidths: more than this many are binned for the search first. */
#define KR_CV_BINS 2000

static const char *const kernel_names[] = {"normal", "epanechnikov", "tricube", NULL};

/* Perun's defaults for kernel-ridge's --gamma-range and --gamma-step. */
#define RIDGE_LO 1e-5
#define RIDGE_HI 1e-4
#define RIDGE_STEP 1e-5
/* Perun fits nothing below this many points: the curve is the points. */
#define RIDGE_MIN_POINTS 3

struct kr_opts {
	struct series_keys keys;
	bool local_linear;
	enum kernel kern;
	const char *bw_rule; /* scott, silverman, cv, or NULL for @bw */
	double bw;
	bool ridge;	 /* Perun's kernel-ridge mode */
	double gamma[2]; /* its --gamma-range */
	int ngamma;	 /* values of the range given so far */
	double gamma_step;
};

static void kr_free(void *opts)
{
	struct kr_opts *o = opts;

	if (!o)
		return;
	series_keys_free(&o->keys);
	free(o);
}

static int kr_bandwidth(struct kr_opts *o, const char *arg)
{
	static const char *const rules[] = {"scott", "silverman", "cv", NULL};

	for (const char *const *r = rules; *r; r++) {
		if (strcmp(*r, arg) == 0) {
			o->bw_rule = *r;
			return 0;
		}
	}
	if (pp_parse_double(NAME, "--bandwidth", arg, &o->bw) < 0 || !(o->bw > 0))
		return err_set(ERR_INVALID,
			       "postprocess " NAME ": --bandwidth wants scott, silverman, cv or a "
			       "positive number, not '%s'",
			       arg);
	o->bw_rule = NULL;
	return 0;
}

/* One or two values of --gamma-range: "LO", then "HI", or "LO,HI". */
static int kr_gamma_range(struct kr_opts *o, const char *arg)
{
	char *copy = xstrdup(arg), *save = NULL;
	int ret = 0;

	for (char *v = strtok_r(copy, ",", &save); v && ret == 0; v = strtok_r(NULL, ",", &save)) {
		if (o->ngamma == 2)
			ret = err_set(ERR_INVALID, "postprocess " NAME
						   ": --gamma-range takes two values, LO HI");
		else
			ret = pp_parse_double(NAME, "--gamma-range", v, &o->gamma[o->ngamma++]);
	}
	free(copy);
	return ret;
}

/* One callback for the options that need checking, told apart by name. */
static int kr_option(void *ctx, const struct opt *opt, const char *arg)
{
	struct kr_opts *o = ctx;
	const char *name = opt->long_name;
	int i;

	if (strcmp(name, "gamma-range") == 0) {
		if (o->ngamma == 2)
			o->ngamma = 0; /* a later range replaces an earlier one */
		o->ridge = true;
		return kr_gamma_range(o, arg);
	}
	if (strcmp(name, "gamma-step") == 0) {
		o->ridge = true;
		return pp_parse_double(NAME, "--gamma-step", arg, &o->gamma_step);
	}
	if (strcmp(name, "kernel-mode") == 0) {
		if (strcmp(arg, "kernel-ridge") != 0)
			return err_set(ERR_INVALID,
				       "postprocess " NAME ": --kernel-mode: only kernel-ridge is "
				       "Perun's mode we have (the others are --estimator, "
				       "--bandwidth and --kernel), not '%s'",
				       arg);
		o->ridge = true;
		return 0;
	}
	if (strcmp(name, "estimator") == 0) {
		if (strcmp(arg, "local-linear") != 0 && strcmp(arg, "nadaraya-watson") != 0)
			return err_set(ERR_INVALID,
				       "postprocess " NAME ": unknown --estimator '%s' "
				       "(local-linear, nadaraya-watson)",
				       arg);
		o->local_linear = strcmp(arg, "local-linear") == 0;
		return 0;
	}
	if (strcmp(name, "bandwidth") == 0)
		return kr_bandwidth(o, arg);
	for (i = 0; kernel_names[i] && strcmp(kernel_names[i], arg) != 0; i++)
		;
	if (!kernel_names[i])
		return err_set(ERR_INVALID,
			       "postprocess " NAME
			       ": unknown --kernel '%s' (normal, epanechnikov, tricube)",
			       arg);
	o->kern = (enum kernel)i;
	return 0;
}

/* Perun's words: the mode (kernel-regression kernel-ridge) and the second
 * value of --gamma-range LO HI. */
static int kr_operands(struct kr_opts *o, int nop, char **ops)
{
	for (int i = 0; i < nop; i++) {
		char *end;

		if (strcmp(ops[i], "kernel-ridge") == 0) {
			o->ridge = true;
			continue;
		}
		if (o->ngamma == 1 && (strtod(ops[i], &end), end != ops[i] && !*end)) {
			if (kr_gamma_range(o, ops[i]) < 0)
				return ERR_INVALID;
			continue;
		}
		return err_set(ERR_INVALID, "postprocess " NAME ": unexpected argument '%s'",
			       ops[i]);
	}
	return 0;
}

static int kr_check_ridge(struct kr_opts *o)
{
	if (o->ngamma == 1)
		return err_set(ERR_INVALID,
			       "postprocess " NAME ": --gamma-range takes two values, LO HI");
	if (!(o->gamma[0] > 0 && o->gamma[0] < o->gamma[1]))
		return err_set(ERR_INVALID,
			       "postprocess " NAME ": --gamma-range %g %g: want 0 < LO < HI",
			       o->gamma[0], o->gamma[1]);
	if (!(o->gamma_step > 0 && o->gamma_step < o->gamma[1] - o->gamma[0]))
		return err_set(ERR_INVALID,
			       "postprocess " NAME ": --gamma-step %g: want a step above 0 and "
			       "below the range's length %g",
			       o->gamma_step, o->gamma[1] - o->gamma[0]);
	return 0;
}

static int kr_parse(int argc, char **argv, void **out, char **help)
{
	struct kr_opts *o = xcalloc(1, sizeof(*o));
	struct opt keys[SERIES_KEYS_NOPTS];
	const struct opt opts[] = {
		OPT_CALLBACK(0, "estimator", "E", kr_option,
			     "local-linear (default) or nadaraya-watson"),
		OPT_CALLBACK(0, "bandwidth", "B", kr_option,
			     "scott (default), silverman, cv (leave-one-out least\n"
			     "squares) or a positive number"),
		OPT_CALLBACK(0, "kernel", "K", kr_option,
			     "normal (default), epanechnikov or tricube"),
		OPT_INCLUDE(keys),
		OPT_GROUP("Perun's kernel-ridge mode (the word kernel-ridge after the name, or\n"
			  "--kernel-mode kernel-ridge): Nadaraya-Watson with the Gaussian kernel\n"
			  "exp(-gamma d^2), gamma the one of LO, LO+S, ... below HI whose fit has "
			  "the\n"
			  "least mean squared leave-one-out error:"),
		OPT_CALLBACK(0, "gamma-range", "LO,HI", kr_option,
			     "the range of gamma (default 1e-5,1e-4);\n"
			     "Perun's -gr LO HI works too"),
		OPT_CALLBACK(0, "gamma-step", "S", kr_option, "its step (default 1e-5)"),
		OPT_CALLBACK(0, "kernel-mode", "kernel-ridge", kr_option, "this mode"),
		OPT_DASH_ALIAS("gr", "gamma-range"),
		OPT_DASH_ALIAS("gs", "gamma-step"),
		OPT_END(),
	};
	const struct postproc_options po = {
		.usage = "veles postprocess PROFILE kernel-regression [OPTIONS]\n"
			 "veles postprocess PROFILE kernel-regression kernel-ridge\n"
			 "                         [--gamma-range LO HI] [--gamma-step S]",
		.about =
			"Fits each uid's points with a kernel-weighted estimator and writes the\n"
			"curve at the distinct x (or at 1000 evenly spaced x when there are more).",
		.opts = opts,
		.ctx = o,
		.operands = true,
	};
	int nop, ret;

	series_keys_init(&o->keys);
	series_keys_table(&o->keys, keys);
	o->local_linear = true;
	o->kern = KERNEL_NORMAL;
	o->bw_rule = "scott";
	o->gamma[0] = RIDGE_LO;
	o->gamma[1] = RIDGE_HI;
	o->gamma_step = RIDGE_STEP;
	*out = NULL;
	*help = NULL;
	ret = postproc_parse_options(NAME, &po, argc, argv, &nop, help);
	if (ret == 0 && !*help)
		ret = kr_operands(o, nop, argv + 1);
	if (ret == 0 && !*help && o->ridge)
		ret = kr_check_ridge(o);
	if (ret < 0 || *help) {
		kr_free(o);
		return ret;
	}
	series_keys_take(&o->keys);
	*out = o;
	return 0;
}

static const char *kr_estimator(const struct kr_opts *o)
{
	return o->local_linear ? "local-linear" : "nadaraya-watson";
}

static char *kr_params(const void *opts)
{
	const struct kr_opts *o = opts;
	struct buf b = BUF_INIT;
	bool first = true;

	buf_addc(&b, '{');
	if (o->ridge) {
		pp_json_str(&b, &first, "kernel_mode", "kernel-ridge");
		buf_addf(&b, ",\"gamma_range\":[%.17g,%.17g]", o->gamma[0], o->gamma[1]);
		pp_json_num(&b, &first, "gamma_step", o->gamma_step);
		series_keys_json(&o->keys, &b, &first);
		buf_addc(&b, '}');
		return buf_detach(&b, NULL);
	}
	pp_json_str(&b, &first, "estimator", kr_estimator(o));
	if (o->bw_rule)
		pp_json_str(&b, &first, "bandwidth", o->bw_rule);
	else
		pp_json_num(&b, &first, "bandwidth", o->bw);
	pp_json_str(&b, &first, "kernel", kernel_names[o->kern]);
	series_keys_json(&o->keys, &b, &first);
	buf_addc(&b, '}');
	return buf_detach(&b, NULL);
}

static double kr_h(const struct kr_opts *o, const struct series *s, const struct kpoints *k)
{
	if (!o->bw_rule)
		return o->bw;
	if (strcmp(o->bw_rule, "silverman") == 0)
		return kernel_rule_bandwidth(s->x, s->n, 0.9);
	if (strcmp(o->bw_rule, "scott") == 0)
		return kernel_rule_bandwidth(s->x, s->n, 1.059);
	double h0 = kernel_rule_bandwidth(s->x, s->n, 1.059), h;
	struct kpoints bins;

	if (k->m <= KR_CV_BINS)
		return kernel_cv_bandwidth(k, o->kern, h0, o->local_linear);
	kpoints_bin(k, KR_CV_BINS, &bins);
	h = kernel_cv_bandwidth(&bins, o->kern, h0, o->local_linear);
	kpoints_free(&bins);
	return h;
}

/* The fit at each data point, by linear interpolation between grid points. */
static void kr_interpolate(const double *gx, const double *gy, size_t ng, const struct series *s,
			   double *fit)
{
	size_t g = 0;

	for (size_t i = 0; i < s->n; i++) {
		while (g + 2 < ng && gx[g + 1] < s->x[i])
			g++;
		double t = gx[g + 1] > gx[g] ? (s->x[i] - gx[g]) / (gx[g + 1] - gx[g]) : 0;

		fit[i] = gy[g] + (gy[g + 1] - gy[g]) * t;
	}
}

/*
 * Perun's kernel-ridge: gamma by leave-one-out error, then the Gaussian
 * Nadaraya-Watson fit, which is our normal kernel at h = 1 / sqrt(2 gamma).
 * Below three points Perun fits nothing ("kernel_mode": "manually"): the
 * curve is the points themselves.
 */
static double kr_ridge_gamma(const struct kr_opts *o, const struct kpoints *k)
{
	double *grid, gamma;
	size_t ng = kernel_ridge_grid(o->gamma[0], o->gamma[1], o->gamma_step, &grid);
	struct kpoints bins;

	/* Scoring a gamma visits every pair of distinct x in reach: beyond
	 * KR_CV_BINS of them the data are merged into bins first, as for cv. */
	if (k->m <= KR_CV_BINS) {
		gamma = kernel_ridge_gamma(k, grid, ng);
	} else {
		kpoints_bin(k, KR_CV_BINS, &bins);
		gamma = kernel_ridge_gamma(&bins, grid, ng);
		kpoints_free(&bins);
	}
	free(grid);
	return gamma;
}

static void kr_ridge(const struct kr_opts *o, const struct series *s, struct kpoints *k,
		     struct buf *models, struct buf *m)
{
	size_t na = k->m <= KR_MAX_POINTS ? k->m : KR_MAX_POINTS;
	double *at = xmalloc(na * sizeof(*at)), *curve = xmalloc(na * sizeof(*curve));
	double *fit = xmalloc(s->n * sizeof(*fit)), gamma, h;
	bool few = s->n < RIDGE_MIN_POINTS, first = false;

	for (size_t i = 0; i < na; i++) {
		at[i] = k->m <= KR_MAX_POINTS ? k->x[i]
					      : k->x[0] + (k->x[k->m - 1] - k->x[0]) * (double)i /
								  (double)(na - 1);
		curve[i] = k->m <= KR_MAX_POINTS ? k->sum[i] / k->cnt[i] : NAN;
	}
	gamma = few ? 1 : kr_ridge_gamma(o, k);
	h = 1 / sqrt(2 * gamma);
	if (!few) {
		kernel_fit(k, KERNEL_NORMAL, h, false, at, na, curve);
		if (k->m <= KR_MAX_POINTS)
			kernel_fit(k, KERNEL_NORMAL, h, false, s->x, s->n, fit);
		else
			kr_interpolate(at, curve, na, s, fit);
	}
	model_begin(m, s, &o->keys, "kernel", "kernel-ridge", s->x[0], s->x[s->n - 1]);
	pp_json_num(m, &first, "gamma", gamma);
	pp_json_num(m, &first, "bandwidth", h);
	pp_json_str(m, &first, "bandwidth_method", few ? "user" : "kernel-ridge");
	pp_json_str(m, &first, "kernel", "normal");
	pp_json_str(m, &first, "kernel_mode", few ? "manually" : "ridge");
	model_end(models, m, at, curve, na, few ? 1.0 : series_r_square(s->y, fit, s->n));
	free(at);
	free(curve);
	free(fit);
}

static int kr_one(const void *opts, const struct series *s, struct buf *models, struct buf *m)
{
	const struct kr_opts *o = opts;

	if (o->ridge) {
		struct kpoints k;

		kpoints_build(s->x, s->y, s->n, &k);
		kr_ridge(o, s, &k, models, m);
		kpoints_free(&k);
		return 0;
	}

	struct kpoints k;
	double h, *at, *curve, *fit = xmalloc(s->n * sizeof(*fit));
	size_t na;
	bool first = false;

	kpoints_build(s->x, s->y, s->n, &k);
	h = kr_h(o, s, &k);
	na = k.m <= KR_MAX_POINTS ? k.m : KR_MAX_POINTS;
	at = xmalloc(na * sizeof(*at));
	curve = xmalloc(na * sizeof(*curve));
	for (size_t i = 0; i < na; i++)
		at[i] = k.m <= KR_MAX_POINTS
				? k.x[i]
				: k.x[0] + (k.x[k.m - 1] - k.x[0]) * (double)i / (double)(na - 1);
	kernel_fit(&k, o->kern, h, o->local_linear, at, na, curve);
	if (k.m <= KR_MAX_POINTS)
		kernel_fit(&k, o->kern, h, o->local_linear, s->x, s->n, fit);
	else
		kr_interpolate(at, curve, na, s, fit);
	model_begin(m, s, &o->keys, "kernel", kr_estimator(o), s->x[0], s->x[s->n - 1]);
	pp_json_num(m, &first, "bandwidth", h);
	pp_json_str(m, &first, "bandwidth_method", o->bw_rule ? o->bw_rule : "user");
	pp_json_str(m, &first, "kernel", kernel_names[o->kern]);
	model_end(models, m, at, curve, na, series_r_square(s->y, fit, s->n));
	kpoints_free(&k);
	free(at);
	free(curve);
	free(fit);
	return 0;
}

static int kr_run(struct profile *p, const void *opts, const struct postproc_env *env)
{
	const struct kr_opts *o = opts;

	UNUSED(env);
	return series_run_each(p, &o->keys, NAME, kr_one, opts);
}

const struct postproc pp_kernel_regression = {
	.name = NAME,
	.summary = "fit each uid's points by kernel regression (local linear, Nadaraya-Watson, "
		   "or Perun's kernel-ridge)",
	.parse = kr_parse,
	.params_json = kr_params,
	.run = kr_run,
	.free_opts = kr_free,
};
