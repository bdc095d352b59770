/*
 * kernel-regression: a kernel-weighted fit of each uid's points, local
 * linear or Nadaraya-Watson, as statsmodels' KernelReg computes it, written
 * as a "kernel" model (docs/postprocess/kernel-regression.md).
 */
#include <getopt.h>
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

#define NAME "kernel-regression"
/* More distinct x than this are fitted on a grid of this many points. */
#define KR_MAX_POINTS 1000
/* Cross-validation scores O(m^2) pairs for m distinct x at wide
 * bandwidths: more than this many are binned for the search first. */
#define KR_CV_BINS 2000

static const char *const kernel_names[] = {"normal", "epanechnikov", "tricube", NULL};

struct kr_opts {
	struct series_keys keys;
	bool local_linear;
	enum kernel kern;
	const char *bw_rule; /* scott, silverman, cv, or NULL for @bw */
	double bw;
};

static void kr_usage(void)
{
	printf("usage: veles postprocess PROFILE kernel-regression [OPTIONS]\n"
	       "\n"
	       "Fits each uid's points with a kernel-weighted estimator and writes the\n"
	       "curve at the distinct x (or at 1000 evenly spaced x when there are more).\n"
	       "\n"
	       "  --estimator E     local-linear (default) or nadaraya-watson\n"
	       "  --bandwidth B     scott (default), silverman, cv (leave-one-out least\n"
	       "                    squares) or a positive number\n"
	       "  --kernel K        normal (default), epanechnikov or tricube\n"
	       "  --of KEY          the fitted value (default: amount)\n"
	       "  --per KEY         the independent variable (default: structure-unit-size);\n"
	       "                    --depending-on is the same\n");
}

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

static int kr_option(struct kr_opts *o, int opt, char **argv)
{
	switch (opt) {
	case 'e':
		if (strcmp(optarg, "local-linear") != 0 && strcmp(optarg, "nadaraya-watson") != 0)
			return err_set(ERR_INVALID,
				       "postprocess " NAME ": unknown --estimator '%s' "
				       "(local-linear, nadaraya-watson)",
				       optarg);
		o->local_linear = strcmp(optarg, "local-linear") == 0;
		return 0;
	case 'b':
		return kr_bandwidth(o, optarg);
	case 'k':
		for (int i = 0; kernel_names[i]; i++) {
			if (strcmp(kernel_names[i], optarg) == 0) {
				o->kern = (enum kernel)i;
				return 0;
			}
		}
		return err_set(ERR_INVALID,
			       "postprocess " NAME
			       ": unknown --kernel '%s' (normal, epanechnikov, tricube)",
			       optarg);
	default:
		if (series_keys_option(&o->keys, opt, optarg))
			return 0;
		return pp_bad_option(NAME, opt, argv);
	}
}

static int kr_parse(int argc, char **argv, void **out)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{"estimator", required_argument, NULL, 'e'},
		{"bandwidth", required_argument, NULL, 'b'},
		{"kernel", required_argument, NULL, 'k'},
		{"of", required_argument, NULL, 'O'},
		{"per", required_argument, NULL, 'P'},
		{"depending-on", required_argument, NULL, 'P'},
		{NULL, 0, NULL, 0},
	};
	struct kr_opts *o = xcalloc(1, sizeof(*o));
	int opt, ret = 0;

	series_keys_init(&o->keys);
	o->local_linear = true;
	o->kern = KERNEL_NORMAL;
	o->bw_rule = "scott";
	*out = NULL;
	optind = 1;
	opterr = 0;
	while (ret == 0 && (opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			kr_usage();
			kr_free(o);
			return 0;
		}
		ret = kr_option(o, opt, argv);
	}
	if (ret == 0 && optind < argc)
		ret = err_set(ERR_INVALID, "postprocess " NAME ": unexpected argument '%s'",
			      argv[optind]);
	if (ret < 0) {
		kr_free(o);
		return ret;
	}
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

static void kr_one(const struct kr_opts *o, const struct series *s, struct buf *models,
		   struct buf *m)
{
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
}

static int kr_run(struct profile *p, const void *opts)
{
	const struct kr_opts *o = opts;
	struct series_set set;
	struct buf models = BUF_INIT, m = BUF_INIT;
	int ret = series_collect(p, &o->keys, NAME, &set);

	if (ret < 0)
		return ret;
	for (size_t i = 0; i < set.n; i++)
		kr_one(o, &set.s[i], &models, &m);
	models_commit(p, &models);
	buf_release(&models);
	buf_release(&m);
	series_set_free(&set);
	return 0;
}

const struct postproc pp_kernel_regression = {
	.name = NAME,
	.summary = "fit each uid's points by kernel regression (local linear or Nadaraya-Watson)",
	.usage = kr_usage,
	.parse = kr_parse,
	.params_json = kr_params,
	.run = kr_run,
	.free_opts = kr_free,
};
