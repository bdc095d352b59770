/*
 * regressogram: splits each uid's x range into buckets (numpy's
 * histogram_bin_edges estimators or a given number) and fits the mean or
 * median of y in each, a step function written as a "regressogram" model
 * (docs/postprocess/regressogram.md).
 */
#include <math.h>
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

/* ---- buckets, with numpy.histogram_bin_edges' estimators ---- */

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

/* ---- the postprocessor ---- */

#define NAME "regressogram"

static const char *const bucket_methods[] = {"auto",  "doane", "fd",	  "rice",
					     "scott", "sqrt",  "sturges", NULL};

struct rg_opts {
	struct series_keys keys;
	const char *method; /* one of bucket_methods, or NULL with @nbuckets */
	size_t nbuckets;
	bool median;
};

static void rg_free(void *opts)
{
	struct rg_opts *o = opts;

	if (!o)
		return;
	series_keys_free(&o->keys);
	free(o);
}

static int rg_option(void *ctx, const struct opt *opt, const char *arg)
{
	struct rg_opts *o = ctx;
	double v;

	if (strcmp(opt->long_name, "bucket-method") == 0) {
		for (const char *const *m = bucket_methods; *m; m++) {
			if (strcmp(*m, arg) == 0) {
				o->method = *m;
				return 0;
			}
		}
		return err_set(ERR_INVALID, "postprocess " NAME ": unknown --bucket-method '%s'",
			       arg);
	}
	if (strcmp(opt->long_name, "bucket-number") == 0) {
		if (pp_parse_double(NAME, "--bucket-number", arg, &v) < 0)
			return ERR_INVALID;
		if (v != floor(v) || v < 1 || v > REGRESSOGRAM_MAX_BUCKETS)
			return err_set(ERR_INVALID,
				       "postprocess " NAME
				       ": --bucket-number wants a whole number >= 1, not '%s'",
				       arg);
		o->nbuckets = (size_t)v;
		o->method = NULL;
		return 0;
	}
	if (strcmp(arg, "mean") != 0 && strcmp(arg, "median") != 0)
		return err_set(ERR_INVALID,
			       "postprocess " NAME
			       ": unknown --statistic-function '%s' (mean, median)",
			       arg);
	o->median = strcmp(arg, "median") == 0;
	return 0;
}

static int rg_parse(int argc, char **argv, void **out, char **help)
{
	struct rg_opts *o = xcalloc(1, sizeof(*o));
	struct opt keys[SERIES_KEYS_NOPTS];
	const struct opt opts[] = {
		OPT_CALLBACK(0, "bucket-method", "M", rg_option,
			     "auto (default), doane, fd, rice, scott, sqrt or\n"
			     "sturges, as numpy.histogram_bin_edges"),
		OPT_CALLBACK(0, "bucket-number", "N", rg_option, "N equal buckets instead"),
		OPT_CALLBACK(0, "statistic-function", "F", rg_option, "mean (default) or median"),
		OPT_INCLUDE(keys),
		OPT_DASH_ALIAS("bm", "bucket-method"),
		OPT_DASH_ALIAS("bn", "bucket-number"),
		OPT_DASH_ALIAS("sf", "statistic-function"),
		OPT_END(),
	};
	const struct postproc_options po = {
		.usage = "veles postprocess PROFILE regressogram [OPTIONS]",
		.about = "Splits the x range of each uid into equal buckets and fits a constant "
			 "per\n"
			 "bucket: a step function. Empty buckets get 0.",
		.opts = opts,
		.ctx = o,
	};
	int nop, ret;

	series_keys_init(&o->keys);
	series_keys_table(&o->keys, keys);
	o->method = "auto";
	*out = NULL;
	*help = NULL;
	ret = postproc_parse_options(NAME, &po, argc, argv, &nop, help);
	if (ret < 0 || *help) {
		rg_free(o);
		return ret;
	}
	series_keys_take(&o->keys);
	*out = o;
	return 0;
}

static char *rg_params(const void *opts)
{
	const struct rg_opts *o = opts;
	struct buf b = BUF_INIT;
	bool first = true;

	buf_addc(&b, '{');
	pp_json_str(&b, &first, "bucket_method", o->method);
	if (o->method)
		pp_json_str(&b, &first, "bucket_number", NULL);
	else
		pp_json_num(&b, &first, "bucket_number", (double)o->nbuckets);
	pp_json_str(&b, &first, "statistic_function", o->median ? "median" : "mean");
	series_keys_json(&o->keys, &b, &first);
	buf_addc(&b, '}');
	return buf_detach(&b, NULL);
}

/* The statistic of the y of points [from, to) (contiguous: x is sorted). */
static double rg_stat(const struct series *s, size_t from, size_t to, bool median, double *tmp)
{
	if (from == to)
		return 0;
	if (!median)
		return stats_mean(s->y + from, to - from);
	memcpy(tmp, s->y + from, (to - from) * sizeof(*tmp));
	return stats_median_sort(tmp, to - from);
}

static int rg_one(const void *opts, const struct series *s, struct buf *models, struct buf *m)
{
	const struct rg_opts *o = opts;

	double *edges, *tmp, *fit, *stat;
	size_t nb = regressogram_edges(s->x, s->n, o->method, o->nbuckets, &edges), from = 0;
	bool first = false;

	if (nb == 0)
		return err_set(ERR_INVALID,
			       "postprocess " NAME
			       ": --bucket-method %s gives more than %d buckets "
			       "for '%s'; give --bucket-number",
			       o->method, REGRESSOGRAM_MAX_BUCKETS, s->uid);
	tmp = xmalloc(s->n * sizeof(*tmp));
	fit = xmalloc(s->n * sizeof(*fit));
	stat = xmalloc(nb * sizeof(*stat));
	for (size_t b = 0; b < nb; b++) {
		size_t to = from;

		while (to < s->n && regressogram_bucket(edges, nb, s->x[to]) == b)
			to++;
		stat[b] = rg_stat(s, from, to, o->median, tmp);
		for (size_t i = from; i < to; i++)
			fit[i] = stat[b];
		from = to;
	}
	model_begin(m, s, &o->keys, "regressogram", o->method ? o->method : "bucket-number",
		    edges[0], edges[nb]);
	pp_json_num(m, &first, "bucket_number", (double)nb);
	pp_json_str(m, &first, "statistic_function", o->median ? "median" : "mean");
	model_end(models, m, edges, stat, nb, series_r_square(s->y, fit, s->n));
	free(edges);
	free(stat);
	free(tmp);
	free(fit);
	return 0;
}

static int rg_run(struct profile *p, const void *opts, const struct postproc_env *env)
{
	const struct rg_opts *o = opts;

	UNUSED(env);
	return series_run_each(p, &o->keys, NAME, rg_one, opts);
}

const struct postproc pp_regressogram = {
	.name = NAME,
	.summary = "fit a step function: the mean or median of each uid's points per bucket",
	.parse = rg_parse,
	.params_json = rg_params,
	.run = rg_run,
	.free_opts = rg_free,
};
