/*
 * veles show's arguments: options, then VIEW PROFILE or PROFILE [VIEW],
 * then the view's options. The views are those of view/views.h.
 */
#include <string.h>

#include "cli/cli.h"
#include "cli/show.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/optparse.h"

static const char show_usage[] = "veles show [-m REV] [options] PROFILE [VIEW [view options]]\n"
				 "veles show [-m REV] [options] VIEW PROFILE [view options]";

/* The help's paragraph: what PROFILE may be, the views (from their
 * table), the terminal. */
static const char *show_about(struct buf *b)
{
	buf_adds(b, "Shows a registered or pending profile. PROFILE is N@i or a bare N (the\n"
		    "Nth profile of the version, as `veles status` numbers them), N@p (a\n"
		    "pending one), a path, a profile name, or a prefix of a profile's id.\n"
		    "A recording of `veles monitor -f FILE` is shown as a monitor profile: the\n"
		    "summary values of each interval, and those of the --import modules it was\n"
		    "made with, loaded by name (flow and scatter draw them over time);\n"
		    "one of `veles record` as its samples' profile. Files named by path\n"
		    "(recordings, profiles) need no Veles project.\n\nViews:\n");
	view_help(b);
	buf_adds(b, "\nThe terminal rendering is as wide as the terminal ($COLUMNS, else 80),\n"
		    "in colour when stdout is a terminal and NO_COLOR is not set.");
	return buf_str(b);
}

static int opt_given(void *ctx, const struct opt *opt, const char *arg)
{
	struct show_opts *o = ctx;
	struct view_opts *vo = &o->a.vo;
	const char *n = opt->long_name;
	char msg[256];

	if (strcmp(n, "of") == 0)
		vo->of = arg, o->a.given |= VIEW_GIVEN_OF;
	else if (strcmp(n, "per") == 0)
		vo->per = arg, o->a.given |= VIEW_GIVEN_PER;
	else if (strcmp(n, "by") == 0)
		vo->by = arg, o->a.given |= VIEW_GIVEN_BY;
	else if (strcmp(n, "aggregation") == 0) {
		o->a.given |= VIEW_GIVEN_AGG;
		if (view_parse_agg(arg, &vo->agg) < 0) {
			snprintf(msg, sizeof(msg), "%s", err_msg());
			return err_set(ERR_INVALID, "show: %s", msg);
		}
	} else if (strcmp(n, "accumulate") == 0 || strcmp(n, "no-accumulate") == 0) {
		vo->accumulate = n[0] == 'a';
		o->a.given |= VIEW_GIVEN_ACC;
	} else {
		vo->stacked = n[0] == 's';
		o->a.given |= VIEW_GIVEN_STACKING;
		o->stacked_given |= vo->stacked;
		o->grouped_given |= !vo->stacked;
		if (o->stacked_given && o->grouped_given)
			return err_set(ERR_INVALID,
				       "show: --stacked and --grouped exclude each other");
	}
	return 0;
}

/* -h K1,K2 (in tableof) or --headers: the columns, split at commas. */
static int opt_headers(void *ctx, const struct opt *opt, const char *arg)
{
	struct view_opts *vo = &((struct show_opts *)ctx)->a.vo;
	char *save = NULL, *list = (char *)arg, *k;

	UNUSED(opt);
	for (k = strtok_r(list, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		if (vo->nheaders == VIEW_MAX_HEADERS)
			return err_set(ERR_INVALID, "show: at most %d --headers", VIEW_MAX_HEADERS);
		vo->headers[vo->nheaders++] = k;
	}
	return 0;
}

/* --filter-by KEY VALUE: called with the KEY, then with the VALUE. */
static int opt_filter(void *ctx, const struct opt *opt, const char *arg)
{
	struct show_opts *o = ctx;
	struct view_opts *vo = &o->a.vo;

	UNUSED(opt);
	if (!o->filter_key) {
		if (vo->nfilters == VIEW_MAX_FILTERS)
			return err_set(ERR_INVALID, "show: too many --filter-by");
		o->filter_key = arg;
		return 0;
	}
	vo->filters[vo->nfilters].key = o->filter_key;
	vo->filters[vo->nfilters++].value = arg;
	o->filter_key = NULL;
	return 0;
}

/* -h, --help; in tableof --help alone, as -h is --headers there. */
static struct opt help_line(bool tableof)
{
	struct opt o = OPT_HELP_LINE();

	if (tableof)
		o.short_name = 0;
	return o;
}

#define GIVEN(s, l, a, h) OPT_CALLBACK(s, l, a, opt_given, h)
#define GIVEN_FLAG(l, h) OPT_FLAG_CALLBACK(0, l, opt_given, h)

/* The options, before and after the view's name alike; in tableof -h is
 * --headers, elsewhere the help. */
static int parse(struct show_opts *o, bool tableof, int flags, int argc, char **argv, int *nop)
{
	struct view_opts *vo = &o->a.vo;
	struct opt opts[] = {
		OPT_STRING('m', "minor", &o->rev, "REV",
			   "look PROFILE up in version REV (default: HEAD)"),
		OPT_LONG('n', "limit", &o->limit, "N", 0,
			 "table, tableof: at most N rows (tableof: after sorting);\n"
			 "histogram: at most N functions"),
		OPT_BOOL(0, "compact", &o->compact, "raw: no indentation"),
		OPT_BOOL('v', "verbose", &o->verbose,
			 "summary: the postprocessors and models as the profile\n"
			 "holds them (JSON), not by name and as a table"),
		OPT_STRING(0, "format", &o->format, "FMT",
			   "summary and table: text (default) or json;\n"
			   "tableof: plain (default), markdown, csv or json"),
		OPT_STRING('o', "output", &o->output, "FILE",
			   "bars, flow, scatter, histogram: FILE.svg (a standalone\n"
			   "SVG) or FILE.html (an interactive page); tableof: the text"),
		help_line(tableof),
		OPT_GROUP("View options (after the view's name):"),
		GIVEN(0, "of", "KEY", "the value shown (default: amount)"),
		GIVEN(0, "per", "KEY",
		      "the x axis (bars: uid; flow, scatter: structure-unit-size)"),
		GIVEN(0, "by", "KEY", "bars, flow: one series per value of KEY (flow: uid)"),
		GIVEN('a', "aggregation", "F", "sum (default), mean, median, min, max or count"),
		GIVEN_FLAG("stacked", "bars, flow: series on top of each other"),
		GIVEN_FLAG("grouped", "bars, flow: series side by side (default)"),
		GIVEN_FLAG("no-accumulate", "flow: the aggregated values, not their running sum"),
		GIVEN_FLAG("accumulate",
			   "flow: their running sum (default, but for memory profiles)"),
		OPT_CALLBACK(tableof ? 'h' : 0, "headers", "K,..", opt_headers,
			     "tableof (-h after its name): the columns, in order (repeatable)"),
		OPT_STRING(0, "sort-by", &vo->sort_by, "KEY",
			   "tableof: rows ordered by a column (numbers by value)"),
		OPT_BOOL(0, "descending", &vo->sort_desc, "tableof: largest first"),
		{.kind = OPT_KIND_CALLBACK,
		 .long_name = "filter-by",
		 .argh = "KEY VALUE",
		 .cb = opt_filter,
		 .flags = OPT_ARG2,
		 .help = "only resources whose KEY is VALUE (repeatable)"},
		OPT_STRING(0, "title", &vo->title, "TEXT",
			   "bars, flow, scatter, histogram: the figure's title"),
		OPT_LONG(0, "snapshot", &o->snapshot, "N", 0,
			 "heapmap: the snapshot shown first (default: the peak's)"),
		OPT_BOOL(0, "text", &o->text, "heapmap: one frame as text, even on a terminal"),
		OPT_LONG(0, "rows", &o->rows, "N", 0,
			 "heapmap as text: at most N rows of cells (default 16)"),
		OPT_END(),
	};
	struct buf about = BUF_INIT;
	struct optparse p = {"show", show_usage, show_about(&about), opts, o, flags};
	int ret = cli_parse_options(&p, argc, argv, nop);

	buf_release(&about);
	return ret;
}

static bool is_tableof(const struct show_opts *o)
{
	return o->view && strcmp(o->view->name, "tableof") == 0;
}

/* A figure view's options start from its defaults. */
static void set_view(struct show_opts *o, const struct view_def *v)
{
	int given = o->a.given;

	o->view = v;
	if (v->flags & VIEW_FIGURE)
		view_args_init(&o->a, v);
	o->a.given = given;
}

/* tableof's subject, right after its name: resources (default) or models. */
static int tableof_subject(char **ops, int n, int k, struct show_opts *o)
{
	if (k >= n || ops[k][0] == '-')
		return k;
	if (strcmp(ops[k], "models") == 0)
		o->a.vo.kind = VIEW_TABLE_MODELS;
	else if (strcmp(ops[k], "resources") != 0)
		return k;
	return k + 1;
}

/* VIEW PROFILE or PROFILE [VIEW] from the operands @ops; returns the index
 * of the first operand after them, or -1 after a usage error. */
static int positionals(char **ops, int n, struct show_opts *o)
{
	const struct view_def *v;
	struct buf names = BUF_INIT;
	int k = 0;

	if (n == 0)
		return cli_usage_error("show", "name a profile, and optionally a view"), -1;
	if ((v = view_find(ops[k]))) {
		set_view(o, v);
		k = is_tableof(o) ? tableof_subject(ops, n, k + 1, o) : k + 1;
		if (k >= n || ops[k][0] == '-')
			return cli_usage_error("show", "which profile should the %s view show?",
					       v->name),
			       -1;
		o->spec = ops[k++];
		return is_tableof(o) ? tableof_subject(ops, n, k, o)
				     : k; /* tableof PROFILE models */
	}
	o->spec = ops[k++];
	if (k < n && ops[k][0] != '-') {
		if (!(v = view_find(ops[k]))) {
			view_names(&names);
			cli_usage_error("show", "unknown view '%s': use %s", ops[k],
					buf_str(&names));
			buf_release(&names);
			return -1;
		}
		set_view(o, v);
		k++;
	}
	return is_tableof(o) ? tableof_subject(ops, n, k, o) : k;
}

/* What is left after the view's options: a view's name, as in `veles show
 * PROFILE -n 3 table`, or nothing. */
static int leftover(char **rest, int n, struct show_opts *o)
{
	const struct view_def *v = n == 1 && !o->view ? view_find(rest[1]) : NULL;

	if (v && strcmp(v->name, "tableof") != 0) {
		set_view(o, v);
		if (v->flags & VIEW_FIGURE)
			return cli_usage_error("show", "the options of %s go after its name",
					       v->name);
		return 0;
	}
	if (n)
		return cli_usage_error("show", "unexpected argument '%s'", rest[1]);
	return 0;
}

int show_parse_args(int argc, char **argv, struct show_opts *o)
{
	int ret, nop, k, nrest;
	char **rest;

	o->snapshot = -1;
	view_args_init(&o->a, NULL);
	ret = parse(o, false, OPTP_STOP_AT_OPERAND, argc, argv, &nop);
	if (ret)
		return ret;
	k = positionals(argv + 1, nop, o);
	if (k < 0)
		return 2;
	/* The view's options: everything after the positionals, parsed anew
	 * (rest[0] stands for the program's name). */
	rest = argv + k;
	nrest = nop - k + 1;
	ret = parse(o, is_tableof(o), 0, nrest, rest, &nop);
	if (ret)
		return ret;
	return leftover(rest, nop, o);
}
