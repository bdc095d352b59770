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
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/postproc.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
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

static void cl_usage(void)
{
	printf("usage: veles postprocess PROFILE clusterizer [--strategy S] [WINDOW OPTIONS]\n"
	       "\n"
	       "Gives every resource without a structure-unit-size a cluster number as its\n"
	       "structure-unit-size (and as \"cluster\"), per type, subtype and uid, over\n"
	       "the amounts sorted ascending, so that regression analysis and the scatter\n"
	       "view work on profiles that carry no size.\n"
	       "\n"
	       "  --strategy S             sort-order (default): the rank, 1, 2, 3, ...;\n"
	       "                           sliding-window: a new cluster when the window is\n"
	       "                           full or an amount rises above its top\n"
	       "  --window-width W         how many resources a window holds (default 0.01)\n"
	       "  --width-measure M        relative (default): W is a share of the group's\n"
	       "                           resources; absolute: W resources\n"
	       "  --window-height H        how far above a cluster's first amount the window\n"
	       "                           reaches (default 0.01)\n"
	       "  --height-measure M       relative (default): H is a share of that amount;\n"
	       "                           absolute: H in the amount's unit\n"
	       "\n"
	       "Perun's flags are taken too: --relative-window-width, --fixed-window-width,\n"
	       "--relative-window-height, --fixed-window-height.\n");
}

static void cl_free(void *opts)
{
	free(opts);
}

enum {
	OPT_STRATEGY = 0x100,
	OPT_WIDTH,
	OPT_HEIGHT,
	OPT_WIDTH_MEASURE,
	OPT_HEIGHT_MEASURE,
	OPT_REL_WIDTH,
	OPT_FIXED_WIDTH,
	OPT_REL_HEIGHT,
	OPT_FIXED_HEIGHT,
};

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

static int cl_option(struct cl_opts *o, int opt, char **argv)
{
	switch (opt) {
	case OPT_STRATEGY:
		if (strcmp(optarg, "sort-order") == 0 || strcmp(optarg, "sort_order") == 0)
			o->window = false;
		else if (strcmp(optarg, "sliding-window") == 0 ||
			 strcmp(optarg, "sliding_window") == 0)
			o->window = true;
		else
			return err_set(ERR_INVALID,
				       "postprocess " NAME
				       ": --strategy is sort-order or sliding-window, not '%s'",
				       optarg);
		return 0;
	case OPT_WIDTH:
		return size_option("--window-width", optarg, true, &o->width);
	case OPT_HEIGHT:
		return size_option("--window-height", optarg, false, &o->height);
	case OPT_WIDTH_MEASURE:
		return measure("--width-measure", optarg, &o->width_abs);
	case OPT_HEIGHT_MEASURE:
		return measure("--height-measure", optarg, &o->height_abs);
	case OPT_REL_WIDTH:
	case OPT_FIXED_WIDTH:
		o->width_abs = opt == OPT_FIXED_WIDTH;
		return 0;
	case OPT_REL_HEIGHT:
	case OPT_FIXED_HEIGHT:
		o->height_abs = opt == OPT_FIXED_HEIGHT;
		return 0;
	default:
		return pp_bad_option(NAME, opt, argv);
	}
}

static int cl_parse(int argc, char **argv, void **out)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{"strategy", required_argument, NULL, OPT_STRATEGY},
		{"window-width", required_argument, NULL, OPT_WIDTH},
		{"window-height", required_argument, NULL, OPT_HEIGHT},
		{"width-measure", required_argument, NULL, OPT_WIDTH_MEASURE},
		{"height-measure", required_argument, NULL, OPT_HEIGHT_MEASURE},
		{"relative-window-width", no_argument, NULL, OPT_REL_WIDTH},
		{"fixed-window-width", no_argument, NULL, OPT_FIXED_WIDTH},
		{"relative-window-height", no_argument, NULL, OPT_REL_HEIGHT},
		{"fixed-window-height", no_argument, NULL, OPT_FIXED_HEIGHT},
		{NULL, 0, NULL, 0},
	};
	struct cl_opts *o = xcalloc(1, sizeof(*o));
	int opt, ret = 0;

	o->width = DEFAULT_WIDTH;
	o->height = DEFAULT_HEIGHT;
	*out = NULL;
	optind = 1;
	opterr = 0;
	while (ret == 0 && (opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			cl_usage();
			cl_free(o);
			return 0;
		}
		ret = cl_option(o, opt, argv);
	}
	if (ret == 0 && optind < argc)
		ret = err_set(ERR_INVALID, "postprocess " NAME ": unexpected argument '%s'",
			      argv[optind]);
	if (ret < 0) {
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

static int cl_run(struct profile *p, const void *opts)
{
	size_t nres = profile_nres(p), n;
	struct point *pt = xmalloc((nres + 1) * sizeof(*pt));
	int64_t *cluster = xmalloc((nres + 1) * sizeof(*cluster));
	struct column *size, *cl;

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
	.usage = cl_usage,
	.parse = cl_parse,
	.params_json = cl_params,
	.run = cl_run,
	.free_opts = cl_free,
};
