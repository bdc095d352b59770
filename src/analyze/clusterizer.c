/*
 * clusterizer: gives every resource that has no structure-unit-size a
 * cluster number as its structure-unit-size (and as "cluster", the field
 * Perun's clusterizer wrote), so that regression analysis and the scatter
 * view have an x for profiles that carry none: collect time, memory and
 * regex. Perun's two strategies, per resource type, subtype and uid, over
 * the amounts sorted ascending (docs/postprocess/clusterizer.md):
 *
 *   sort-order      the rank: 1, 2, 3, ...
 *   sliding-window  a new cluster when the window is full (width: a number
 *                   of resources, or a share of the group's) or an amount
 *                   rises above its top (height: above the cluster's first
 *                   amount by a fixed step, or by a share of it).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/postproc.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/optparse.h"
#include "util/strmap.h"

#define NAME "clusterizer"

/* Perun's defaults: a window 1% of the group wide and 1% above its first. */
#define DEFAULT_WIDTH 0.01
#define DEFAULT_HEIGHT 0.01

struct cl_opts {
	bool window;	 /* sliding-window, else sort-order */
	double width;	 /* resources (absolute) or a share of the group's */
	bool width_abs;	 /* Perun's "absolute" width measure */
	double height;	 /* amount above the first (absolute) or a share of it */
	bool height_abs; /* Perun's "absolute" height measure */
};

static void cl_free(void *opts)
{
	free(opts);
}

/* relative or absolute; Perun lists "weighted" for the width but never
 * computed it (its sliding window refuses it), so neither do we. */
static int measure(const char *opt, const char *arg, bool *absolute)
{
	if (strcmp(arg, "relative") == 0 || strcmp(arg, "absolute") == 0) {
		*absolute = arg[0] == 'a';
		return 0;
	}
	if (strcmp(arg, "weighted") == 0)
		return err_set(ERR_INVALID,
			       "postprocess " NAME ": %s weighted is not supported "
			       "(relative or absolute)",
			       opt);
	return err_set(ERR_INVALID, "postprocess " NAME ": %s is relative or absolute, not '%s'",
		       opt, arg);
}

static int size_option(const char *opt, const char *arg, bool positive, double *out)
{
	if (pp_parse_double(NAME, opt, arg, out) < 0)
		return ERR_INVALID;
	if (positive ? !(*out > 0) : !(*out >= 0))
		return err_set(ERR_INVALID,
			       "postprocess " NAME ": %s wants a number %s 0, not '%s'", opt,
			       positive ? ">" : ">=", arg);
	return 0;
}

/* One callback for every option, told apart by name. */
static int cl_option(void *ctx, const struct opt *opt, const char *arg)
{
	struct cl_opts *o = ctx;
	const char *name = opt->long_name;

	if (strcmp(name, "strategy") == 0) {
		if (strcmp(arg, "sort-order") == 0 || strcmp(arg, "sort_order") == 0)
			o->window = false;
		else if (strcmp(arg, "sliding-window") == 0 || strcmp(arg, "sliding_window") == 0)
			o->window = true;
		else
			return err_set(ERR_INVALID,
				       "postprocess " NAME
				       ": --strategy is sort-order or sliding-window, not '%s'",
				       arg);
		return 0;
	}
	if (strcmp(name, "window-width") == 0)
		return size_option("--window-width", arg, true, &o->width);
	if (strcmp(name, "window-height") == 0)
		return size_option("--window-height", arg, false, &o->height);
	if (strcmp(name, "width-measure") == 0)
		return measure("--width-measure", arg, &o->width_abs);
	if (strcmp(name, "height-measure") == 0)
		return measure("--height-measure", arg, &o->height_abs);
	/* Perun's flags: --relative-window-width, --fixed-window-height, ... */
	if (strstr(name, "width"))
		o->width_abs = name[0] == 'f';
	else
		o->height_abs = name[0] == 'f';
	return 0;
}

static int cl_parse(int argc, char **argv, void **out, char **help)
{
	struct cl_opts *o = xcalloc(1, sizeof(*o));
	const struct opt opts[] = {
		OPT_CALLBACK(0, "strategy", "S", cl_option,
			     "sort-order (default): the rank, 1, 2, 3, ...;\n"
			     "sliding-window: a new cluster when the window is\n"
			     "full or an amount rises above its top"),
		OPT_CALLBACK(0, "window-width", "W", cl_option,
			     "how many resources a window holds (default 0.01)"),
		OPT_CALLBACK(0, "width-measure", "M", cl_option,
			     "relative (default): W is a share of the group's\n"
			     "resources; absolute: W resources"),
		OPT_CALLBACK(0, "window-height", "H", cl_option,
			     "how far above a cluster's first amount the window\n"
			     "reaches (default 0.01)"),
		OPT_CALLBACK(0, "height-measure", "M", cl_option,
			     "relative (default): H is a share of that amount;\n"
			     "absolute: H in the amount's unit"),
		OPT_GROUP("Perun's flags are taken too:"),
		OPT_FLAG_CALLBACK(0, "relative-window-width", cl_option,
				  "--width-measure relative"),
		OPT_FLAG_CALLBACK(0, "fixed-window-width", cl_option, "--width-measure absolute"),
		OPT_FLAG_CALLBACK(0, "relative-window-height", cl_option,
				  "--height-measure relative"),
		OPT_FLAG_CALLBACK(0, "fixed-window-height", cl_option, "--height-measure absolute"),
		OPT_END(),
	};
	const struct postproc_options po = {
		.usage = "veles postprocess PROFILE clusterizer [--strategy S] [WINDOW OPTIONS]",
		.about = "Gives every resource without a structure-unit-size a cluster number as "
			 "its\n"
			 "structure-unit-size (and as \"cluster\"), per type, subtype and uid, "
			 "over\n"
			 "the amounts sorted ascending, so that regression analysis and the "
			 "scatter\n"
			 "view work on profiles that carry no size.",
		.opts = opts,
		.ctx = o,
	};
	int nop, ret;

	o->width = DEFAULT_WIDTH;
	o->height = DEFAULT_HEIGHT;
	*out = NULL;
	*help = NULL;
	ret = postproc_parse_options(NAME, &po, argc, argv, &nop, help);
	if (ret < 0 || *help) {
		cl_free(o);
		return ret;
	}
	*out = o;
	return 0;
}

/* Perun's parameter names, so its records and ours replay alike. */
static char *cl_params(const void *opts)
{
	const struct cl_opts *o = opts;
	struct buf b = BUF_INIT;
	bool first = true;

	buf_addc(&b, '{');
	pp_json_str(&b, &first, "strategy", o->window ? "sliding_window" : "sort_order");
	pp_json_num(&b, &first, "window_width", o->width);
	pp_json_str(&b, &first, "width_measure", o->width_abs ? "absolute" : "relative");
	pp_json_num(&b, &first, "window_height", o->height);
	pp_json_str(&b, &first, "height_measure", o->height_abs ? "absolute" : "relative");
	buf_addc(&b, '}');
	return buf_detach(&b, NULL);
}

/* ---- the clusters ---- */

struct point {
	size_t group;
	double amount;
	size_t row;
};

static int point_cmp(const void *a, const void *b)
{
	const struct point *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->amount != y->amount)
		return x->amount < y->amount ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/* The top of a window that starts at @amount. */
static double window_top(const struct cl_opts *o, double amount)
{
	return o->height_abs ? amount + o->height : amount + fabs(amount) * o->height;
}

/* The clusters of one group's @n points, sorted by amount. */
static void cluster_group(const struct cl_opts *o, const struct point *pt, size_t n,
			  int64_t *cluster)
{
	double width = o->width_abs ? o->width : (double)n * o->width;
	double top = window_top(o, pt[0].amount);
	int64_t c = 1;
	size_t held = 0;

	for (size_t i = 0; i < n; i++) {
		if (o->window && ((double)held >= width || pt[i].amount > top)) {
			c++;
			held = 0;
			top = window_top(o, pt[i].amount);
		}
		held++;
		cluster[i] = o->window ? c : (int64_t)i + 1;
	}
}

/* "type\x1fsubtype\x1fuid" of a resource: its group. */
static const char *group_key(const struct profile *p, size_t row, struct buf *key,
			     struct buf *scratch)
{
	const char *type = NULL, *sub = profile_subtype(p, row);
	size_t at = row;
	const struct column *c = profile_attr(p, row, "type", NULL, &at);

	type = c ? col_text(p, c, at) : NULL;
	buf_reset(key);
	buf_addf(key, "%s\x1f%s\x1f", type ? type : "", sub ? sub : "");
	buf_adds(key, profile_uid(p, row, scratch));
	return buf_str(key);
}

/* The resources to cluster: those with a numeric amount and no size. */
static size_t gather(const struct profile *p, struct point *pt)
{
	struct buf key = BUF_INIT, scratch = BUF_INIT;
	struct strmap groups = {0};
	size_t n = 0;

	for (size_t row = 0; row < profile_nres(p); row++) {
		double amount = profile_amount(p, row);

		/* profile_attr() finds only a value that is there. */
		if (profile_attr(p, row, "structure-unit-size", NULL, NULL) || isnan(amount))
			continue;
		pt[n++] = (struct point){
			strmap_intern(&groups, group_key(p, row, &key, &scratch), NULL), amount,
			row};
	}
	strmap_free(&groups);
	buf_release(&key);
	buf_release(&scratch);
	return n;
}

static int cl_run(struct profile *p, const void *opts, const struct postproc_env *env)
{
	size_t nres = profile_nres(p), n;
	struct point *pt = xmalloc((nres + 1) * sizeof(*pt));
	int64_t *cluster = xmalloc((nres + 1) * sizeof(*cluster));
	struct column *size, *cl;

	UNUSED(env);
	n = gather(p, pt);
	if (n == 0) {
		free(pt);
		free(cluster);
		return 0;
	}
	qsort(pt, n, sizeof(*pt), point_cmp);
	for (size_t from = 0, to; from < n; from = to) {
		for (to = from + 1; to < n && pt[to].group == pt[from].group; to++)
			;
		cluster_group(opts, pt + from, to - from, cluster + from);
	}
	/* Both columns exist before either pointer is taken: adding one may
	 * move the other. */
	table_col_get(p, &p->res, "structure-unit-size", COL_I64);
	table_col_get(p, &p->res, "cluster", COL_I64);
	size = table_col(&p->res, "structure-unit-size");
	cl = table_col(&p->res, "cluster");
	for (size_t i = 0; i < n; i++) {
		col_set_i64(&p->res, size, pt[i].row, cluster[i]);
		col_set_i64(&p->res, cl, pt[i].row, cluster[i]);
	}
	free(pt);
	free(cluster);
	return 0;
}

const struct postproc pp_clusterizer = {
	.name = NAME,
	.summary = "number the resources without a size by cluster, as their size",
	.parse = cl_parse,
	.params_json = cl_params,
	.run = cl_run,
	.free_opts = cl_free,
};
