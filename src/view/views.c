/*
 * The table of views (views.h): the one place a view's name is tied to
 * what it applies to and how it renders. Every front end lists and draws
 * views from here.
 */
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "view/bounds_view.h"
#include "view/views.h"

static bool any(const struct profile *p)
{
	UNUSED(p);
	return true;
}

static bool has_resources(const struct profile *p)
{
	return profile_nres(p) > 0;
}

static bool is_memory(const struct profile *p)
{
	return p->type && strcmp(p->type, "memory") == 0;
}

static bool has_bounds(const struct profile *p)
{
	return table_col(&p->types, "bound") || table_col(&p->res, "bound");
}

static bool has_histograms(const struct profile *p)
{
	const struct column *c = table_col(&p->res, "histogram");

	return c && c->kind == COL_JSON;
}

/* Stacks (a "trace" per resource), or a trace profile's calls. */
static bool has_stacks(const struct profile *p)
{
	return table_col(&p->res, "trace") || table_col(&p->types, "trace") ||
	       (table_col(&p->res, "depth") && table_col(&p->res, "exclusive"));
}

static const char *name_of(const struct view_args *a)
{
	return a->name ? a->name : "profile";
}

static int text_only(const char *view, enum view_target t)
{
	if (t == TARGET_TERM)
		return 0;
	return err_set(ERR_INVALID, "the %s view is text: it draws no SVG or HTML", view);
}

static int render_summary(const struct profile *p, const struct view_args *a, enum view_target t,
			  struct buf *out)
{
	int ret = text_only("summary", t);

	if (ret == 0)
		view_summary(p, name_of(a), a->verbose, a->json, a->limit, out);
	return ret;
}

static int render_table(const struct profile *p, const struct view_args *a, enum view_target t,
			struct buf *out)
{
	int ret = text_only("table", t);

	if (ret == 0)
		view_resource_table(p, a->limit, a->json, out);
	return ret;
}

static int render_raw(const struct profile *p, const struct view_args *a, enum view_target t,
		      struct buf *out)
{
	int ret = text_only("raw", t);

	if (ret == 0) {
		profile_write_json(p, out, !a->compact);
		if (a->compact)
			buf_addc(out, '\n');
	}
	return ret;
}

static int render_memory(const struct profile *p, const struct view_args *a, enum view_target t,
			 struct buf *out)
{
	int ret = text_only("memory", t);

	return ret ? ret : view_memory(p, name_of(a), a->limit, a->json, out);
}

static int render_heapmap(const struct profile *p, const struct view_args *a, enum view_target t,
			  struct buf *out)
{
	int ret = text_only("heapmap", t);

	return ret ? ret : view_heapmap_text(p, a->snapshot, a->rows, a->vo.width, out);
}

static int read_file(const char *path, struct buf *out, void *arg)
{
	UNUSED(arg);
	return file_read_all(path, out);
}

static int render_bounds(const struct profile *p, const struct view_args *a, enum view_target t,
			 struct buf *out)
{
	struct bounds_view_opts o = {
		.width = a->vo.width,
		.color = a->vo.color,
		.read = a->read_source ? a->read_source : read_file,
		.arg = a->source_arg,
	};
	int ret = text_only("bounds", t);

	return ret ? ret : view_bounds(p, &o, out);
}

/* The figures and tableof: view.c's data step and renderers, as @kind. */
static int render_as(const struct profile *p, const struct view_args *a, enum view_target t,
		     struct buf *out, enum view_kind kind)
{
	struct view_opts o = a->vo;

	o.kind = kind;
	return view_render(p, &o, t, out);
}

#define FIGURE(fn, kind)                                                                           \
	static int fn(const struct profile *p, const struct view_args *a, enum view_target t,      \
		      struct buf *out)                                                             \
	{                                                                                          \
		return render_as(p, a, t, out, kind);                                              \
	}
FIGURE(render_bars, VIEW_BARS)
FIGURE(render_scatter, VIEW_SCATTER)
FIGURE(render_flamegraph, VIEW_FLAMEGRAPH)
FIGURE(render_histogram, VIEW_HISTOGRAM)

/* The flow of a memory profile, the seed's: the mean amount per allocation
 * site over the snapshots, stacked, not accumulated, for each of those
 * options left out. A memory profile has no structure-unit-size. */
static void memory_flow_defaults(struct view_opts *vo, int given)
{
	if (!(given & VIEW_GIVEN_OF))
		vo->of = "amount";
	if (!(given & VIEW_GIVEN_PER))
		vo->per = "snapshot";
	if (!(given & VIEW_GIVEN_BY))
		vo->by = "uid";
	if (!(given & VIEW_GIVEN_AGG))
		vo->agg = AGG_MEAN;
	if (!(given & VIEW_GIVEN_STACKING))
		vo->stacked = true;
	if (!(given & VIEW_GIVEN_ACC))
		vo->accumulate = false;
}

static int render_flow(const struct profile *p, const struct view_args *a, enum view_target t,
		       struct buf *out)
{
	struct view_opts o = a->vo;

	o.kind = VIEW_FLOW;
	if (is_memory(p))
		memory_flow_defaults(&o, a->given);
	return view_render(p, &o, t, out);
}

static int render_tableof(const struct profile *p, const struct view_args *a, enum view_target t,
			  struct buf *out)
{
	return render_as(p, a, t, out,
			 a->vo.kind == VIEW_TABLE_MODELS ? VIEW_TABLE_MODELS : VIEW_TABLE_RES);
}

static const struct view_def defs[] = {
	{"summary", NULL,
	 "header, units and per-resource statistics of the amounts\n"
	 "(count, mean, standard deviation, median, min, max); default",
	 0, any, render_summary},
	{"table", NULL, "one row per resource: uid, type, subtype and every measured field", 0, any,
	 render_table},
	{"raw", NULL, "the profile as JSON, indented (--compact for one line)", 0, any, render_raw},
	{"memory", NULL,
	 "a memory profile: peak heap, totals, temporary allocations,\n"
	 "leaks with their stacks, top sites (-n: how many; default 10)",
	 0, is_memory, render_memory},
	{"heapmap", NULL,
	 "a memory profile's address space at the end of a snapshot:\n"
	 "curses on a terminal (arrow keys: snapshots), else as text",
	 0, is_memory, render_heapmap},
	{"tableof", "resources|models", "the resources (or the fitted models), filtered and sorted",
	 VIEW_FIGURE, any, render_tableof},
	{"bars", NULL, "one bar per --per value, of the --of values aggregated",
	 VIEW_PICTURE | VIEW_FIGURE, has_resources, render_bars},
	{"flow", NULL,
	 "the aggregated --of values as lines over a numeric --per\n"
	 "(a memory profile's, by default the seed's: --of amount --per\n"
	 "snapshot --by uid -a mean --stacked --no-accumulate, for each\n"
	 "of those options not given)",
	 VIEW_PICTURE | VIEW_FIGURE, has_resources, render_flow},
	{"scatter", NULL,
	 "every measurement as a point, one graph per uid, with the\n"
	 "profile's models drawn as curves",
	 VIEW_PICTURE | VIEW_FIGURE, has_resources, render_scatter},
	{"flamegraph", NULL,
	 "the call stacks of the resources' traces, inclusive --of per\n"
	 "frame, or with -a count the resources whose --of is not 0\n"
	 "(SVG or HTML only: -o FILE.svg|FILE.html; in a browser a click\n"
	 "zooms into a frame, a box searches, hovering gives values)",
	 VIEW_PICTURE | VIEW_FIGURE, has_stacks, render_flamegraph},
	{"histogram", NULL,
	 "an aggregate trace profile's histogram of each function's\n"
	 "inclusive time, a bar per bucket (-n: the N functions with\n"
	 "the most time); its summary gives p50, p90 and p99",
	 VIEW_PICTURE | VIEW_FIGURE, has_histograms, render_histogram},
	{"bounds", NULL,
	 "a bounds profile: the source of each function with every\n"
	 "loop's bound and class beside it (read from the profile's\n"
	 "version in a git project, else from the files)",
	 0, has_bounds, render_bounds},
};

/* "  name      about", the about's lines aligned; a long name on a line
 * of its own. */
void view_help(struct buf *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(defs); i++) {
		const struct view_def *v = &defs[i];
		const char *s = v->about;
		size_t len = strlen(v->name) + (v->operands ? strlen(v->operands) + 1 : 0);

		buf_addf(out, "  %s%s%s", v->name, v->operands ? " " : "",
			 v->operands ? v->operands : "");
		buf_addf(out, "%*s", len < 10 ? (int)(10 - len) : 0, "");
		if (len >= 10)
			buf_addf(out, "\n%12s", "");
		while (*s) {
			size_t n = strcspn(s, "\n");

			buf_add(out, s, n);
			buf_addc(out, '\n');
			s += n;
			if (*s && *++s)
				buf_addf(out, "%12s", "");
		}
	}
}

const struct view_def *view_defs(size_t *n)
{
	*n = ARRAY_SIZE(defs);
	return defs;
}

const struct view_def *view_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(defs); i++)
		if (strcmp(defs[i].name, name) == 0)
			return &defs[i];
	return NULL;
}

void view_names(struct buf *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(defs); i++)
		buf_addf(out, "%s%s",
			 i == 0			    ? ""
			 : i + 1 < ARRAY_SIZE(defs) ? ", "
						    : " or ",
			 defs[i].name);
}

void view_args_init(struct view_args *a, const struct view_def *v)
{
	memset(a, 0, sizeof(*a));
	view_opts_init(&a->vo, v && v->render == render_flow ? VIEW_FLOW : VIEW_BARS);
	if (v && v->render == render_tableof)
		a->vo.kind = VIEW_TABLE_RES;
	a->snapshot = -1;
}
