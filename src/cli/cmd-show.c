/* veles show: one profile as raw JSON, a table, a summary, or one of the
 * views of src/view (tableof, bars, flow, scatter). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/perun-opts.h"
#include "cli/record.h"
#include "cli/select.h"
#include "cli/show.h"
#include "collect/monitor/monitor.h"
#include "monitor/record.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "view/view.h"

static const char show_usage[] =
	"usage: veles show [-m REV] [options] PROFILE [VIEW [view options]]\n"
	"       veles show [-m REV] [options] VIEW PROFILE [view options]\n"
	"\n"
	"Shows a registered or pending profile. PROFILE is N@i or a bare N (the\n"
	"Nth profile of the version, as `veles status` numbers them), N@p (a\n"
	"pending one), a path, a profile name, or a prefix of a profile's id.\n"
	"A recording of `veles monitor -f FILE` is shown as a monitor profile: the\n"
	"summary values of each interval, and those of the --import modules it was\n"
	"made with, loaded by name (flow and scatter draw them over time);\n"
	"one of `veles record` as its samples' profile. Files named by path\n"
	"(recordings, profiles) need no Veles project.\n"
	"\n"
	"Views:\n"
	"  summary   header, units and per-resource statistics of the amounts\n"
	"            (count, mean, standard deviation, median, min, max); default\n"
	"  table     one row per resource: uid, type, subtype and every measured field\n"
	"  raw       the profile as JSON, indented (--compact for one line)\n"
	"  memory    a memory profile: peak heap, totals, temporary allocations,\n"
	"            leaks with their stacks, top sites (-n: how many; default 10)\n"
	"  heapmap   a memory profile's address space at the end of a snapshot:\n"
	"            curses on a terminal (arrow keys: snapshots), else as text\n"
	"  tableof resources|models\n"
	"            the resources (or the fitted models), filtered and sorted\n"
	"  bars      one bar per --per value, of the --of values aggregated\n"
	"  flow      the aggregated --of values as lines over a numeric --per\n"
	"            (a memory profile's, by default the seed's: --of amount --per\n"
	"            snapshot --by uid -a mean --stacked --no-accumulate, for each\n"
	"            of those options not given)\n"
	"  scatter   every measurement as a point, one graph per uid, with the\n"
	"            profile's models drawn as curves\n"
	"  flamegraph\n"
	"            the call stacks of the resources' traces, inclusive --of per\n"
	"            frame, or with -a count the resources whose --of is not 0\n"
	"            (SVG or HTML only: -o FILE.svg|FILE.html; in a browser a click\n"
	"            zooms into a frame, a box searches, hovering gives values)\n"
	"  histogram an aggregate trace profile's histogram of each function's\n"
	"            inclusive time, a bar per bucket (-n: the N functions with\n"
	"            the most time); its summary gives p50, p90 and p99\n"
	"  bounds    a bounds profile: the source of each function with every\n"
	"            loop's bound and class beside it (read from the profile's\n"
	"            version in a git project, else from the files)\n"
	"\n"
	"  -m, --minor REV   look PROFILE up in version REV (default: HEAD)\n"
	"  -n, --limit N     table, tableof: at most N rows (tableof: after sorting);\n"
	"                    histogram: at most N functions\n"
	"  --compact         raw: no indentation\n"
	"  -v, --verbose     summary: the postprocessors and models as the profile\n"
	"                    holds them (JSON), not by name and as a table\n"
	"  --format FMT      summary and table: text (default) or json;\n"
	"                    tableof: plain (default), markdown, csv or json\n"
	"  -o, --output FILE bars, flow, scatter, histogram: FILE.svg (a standalone\n"
	"                    SVG) or FILE.html (an interactive page); tableof: the text\n"
	"\n"
	"View options (after the view's name):\n"
	"  --of KEY          the value shown (default: amount)\n"
	"  --per KEY         the x axis (bars: uid; flow, scatter: structure-unit-size)\n"

	"  --by KEY          bars, flow: one series per value of KEY (flow: uid)\n"
	"  -a, --aggregation F  sum (default), mean, median, min, max or count\n"
	"  --stacked         bars, flow: series on top of each other\n"
	"  --grouped         bars, flow: series side by side (default)\n"
	"  --no-accumulate   flow: the aggregated values, not their running sum\n"
	"  --accumulate      flow: their running sum (default, but for memory profiles)\n"
	"  -h, --headers K,..  tableof: the columns, in order (repeatable)\n"
	"  --sort-by KEY     tableof: rows ordered by a column (numbers by value)\n"
	"  --descending      tableof: largest first\n"
	"  --filter-by KEY VALUE  only resources whose KEY is VALUE (repeatable)\n"
	"  --title TEXT      bars, flow, scatter, histogram: the figure's title\n"
	"  --snapshot N      heapmap: the snapshot shown first (default: the peak's)\n"
	"  --text            heapmap: one frame as text, even on a terminal\n"
	"  --rows N          heapmap as text: at most N rows of cells (default 16)\n"
	"\n"
	"The terminal rendering is as wide as the terminal ($COLUMNS, else 80),\n"
	"in colour when stdout is a terminal and NO_COLOR is not set.\n";

static const struct {
	const char *name;
	enum view_kind kind;
} graph_views[] = {{"bars", VIEW_BARS},
		   {"flow", VIEW_FLOW},
		   {"scatter", VIEW_SCATTER},
		   {"tableof", VIEW_TABLE_RES},
		   {"flamegraph", VIEW_FLAMEGRAPH},
		   {"histogram", VIEW_HISTOGRAM}};

static bool is_view(const char *s)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(graph_views); i++)
		if (strcmp(s, graph_views[i].name) == 0)
			return true;
	return strcmp(s, "raw") == 0 || strcmp(s, "table") == 0 || strcmp(s, "summary") == 0 ||
	       strcmp(s, "memory") == 0 || strcmp(s, "heapmap") == 0 || strcmp(s, "bounds") == 0;
}

enum {
	OPT_COMPACT = 256,
	OPT_FORMAT,
	OPT_OF,
	OPT_PER,
	OPT_BY,
	OPT_STACKED,
	OPT_GROUPED,
	OPT_NO_ACC,
	OPT_ACC,
	OPT_SORT,
	OPT_DESC,
	OPT_FILTER,
	OPT_TITLE,
	OPT_HELP,
	OPT_SNAPSHOT,
	OPT_TEXT,
	OPT_ROWS,
};

static const struct option show_options[] = {
	{"minor", required_argument, NULL, 'm'},
	{"limit", required_argument, NULL, 'n'},
	{"compact", no_argument, NULL, OPT_COMPACT},
	{"verbose", no_argument, NULL, 'v'},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"output", required_argument, NULL, 'o'},
	{"of", required_argument, NULL, OPT_OF},
	{"per", required_argument, NULL, OPT_PER},
	{"by", required_argument, NULL, OPT_BY},
	{"aggregation", required_argument, NULL, 'a'},
	{"stacked", no_argument, NULL, OPT_STACKED},
	{"grouped", no_argument, NULL, OPT_GROUPED},
	{"no-accumulate", no_argument, NULL, OPT_NO_ACC},
	{"accumulate", no_argument, NULL, OPT_ACC},
	{"headers", required_argument, NULL, 'H'},
	{"sort-by", required_argument, NULL, OPT_SORT},
	{"descending", no_argument, NULL, OPT_DESC},
	{"filter-by", required_argument, NULL, OPT_FILTER},
	{"title", required_argument, NULL, OPT_TITLE},
	{"help", no_argument, NULL, OPT_HELP},
	{"snapshot", required_argument, NULL, OPT_SNAPSHOT},
	{"text", no_argument, NULL, OPT_TEXT},
	{"rows", required_argument, NULL, OPT_ROWS},
	{NULL, 0, NULL, 0},
};

/* -h K1,K2: the columns of tableof, split at commas. */
static int add_headers(char *list, struct view_opts *vo)
{
	char *save = NULL, *k;

	for (k = strtok_r(list, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		if (vo->nheaders == VIEW_MAX_HEADERS) {
			cli_usage_error("show", "at most %d --headers", VIEW_MAX_HEADERS);
			return -1;
		}
		vo->headers[vo->nheaders++] = k;
	}
	return 0;
}

static int add_filter(int argc, char **argv, struct view_opts *vo)
{
	if (optind >= argc || vo->nfilters == VIEW_MAX_FILTERS) {
		cli_usage_error("show", optind >= argc ? "--filter-by takes a KEY and a VALUE"
						       : "too many --filter-by");
		return -1;
	}
	vo->filters[vo->nfilters].key = optarg;
	vo->filters[vo->nfilters++].value = argv[optind++];
	return 0;
}

static int usage_err(int ret)
{
	if (ret < 0)
		cli_usage_error("show", "%s", err_msg());
	return ret < 0 ? -1 : 0;
}

static int heapmap_option(int c, char **argv, struct show_opts *o);

/* The view options; 1 after --help, -1 on a bad one. */
static int view_option(int c, int argc, char **argv, struct show_opts *o)
{
	struct view_opts *vo = &o->vo;

	switch (c) {
	case OPT_OF:
		vo->of = optarg;
		o->of_given = true;
		return 0;
	case OPT_PER:
		vo->per = optarg;
		o->per_given = true;
		return 0;
	case OPT_BY:
		vo->by = optarg;
		o->by_given = true;
		return 0;
	case 'a':
		o->agg_given = true;
		return usage_err(view_parse_agg(optarg, &vo->agg));
	case OPT_STACKED:
	case OPT_GROUPED:
		vo->stacked = c == OPT_STACKED;
		o->stacked_given |= c == OPT_STACKED;
		o->grouped_given |= c == OPT_GROUPED;
		if (o->stacked_given && o->grouped_given) {
			cli_usage_error("show", "--stacked and --grouped exclude each other");
			return -1;
		}
		return 0;
	case OPT_NO_ACC:
	case OPT_ACC:
		vo->accumulate = c == OPT_ACC;
		o->acc_given = true;
		return 0;
	case 'H':
		return add_headers(optarg, vo);
	case OPT_SORT:
		vo->sort_by = optarg;
		return 0;
	case OPT_DESC:
		vo->sort_desc = true;
		return 0;
	case OPT_FILTER:
		return add_filter(argc, argv, vo);
	case OPT_TITLE:
		vo->title = optarg;
		return 0;
	}
	return heapmap_option(c, argv, o);
}

static int heapmap_option(int c, char **argv, struct show_opts *o)
{
	unsigned long v;

	switch (c) {
	case OPT_SNAPSHOT:
		if (cli_parse_uint("show", "--snapshot", optarg, &v) < 0)
			return -1;
		o->snapshot = (long long)v;
		return 0;
	case OPT_TEXT:
		o->text = true;
		return 0;
	case OPT_ROWS:
		return cli_parse_uint("show", "--rows", optarg, &o->rows) < 0 ? -1 : 0;
	}
	cli_bad_option("show", argv);
	return -1;
}

static int show_option(int c, int argc, char **argv, struct show_opts *o)
{
	switch (c) {
	case 'm':
		o->rev = optarg;
		return 0;
	case 'n':
		return cli_parse_uint("show", "--limit", optarg, &o->limit) < 0 ? -1 : 0;
	case OPT_COMPACT:
		o->compact = true;
		return 0;
	case 'v':
		o->verbose = true;
		return 0;
	case OPT_FORMAT:
		o->format = optarg;
		return 0;
	case 'o':
		o->output = optarg;
		return 0;
	case OPT_HELP:
		fputs(show_usage, stdout);
		return 1;
	}
	return view_option(c, argc, argv, o);
}

/* Options from argv[optind] on: up to the first non-option when @shorts
 * starts with '+', else all of them (GNU getopt moves the others last). */
static int parse_options(int argc, char **argv, const char *shorts, struct show_opts *o)
{
	int c, ret;

	while ((c = getopt_long(argc, argv, shorts, show_options, NULL)) != -1) {
		if (c == 'h') /* --help, except in tableof: --headers */
			c = strstr(shorts, "h:") ? 'H' : OPT_HELP;
		if (c == '?') {
			cli_bad_option("show", argv);
			return -1;
		}
		ret = show_option(c, argc, argv, o);
		if (ret)
			return ret;
	}
	return 0;
}

static void set_view(struct show_opts *o, const char *name)
{
	size_t i;

	o->view = name;
	for (i = 0; i < ARRAY_SIZE(graph_views); i++)
		if (strcmp(name, graph_views[i].name) == 0) {
			o->is_graph = true;
			view_opts_init(&o->vo, graph_views[i].kind);
		}
}

/* tableof's subject, right after its name: resources (default) or models. */
static int tableof_subject(int argc, char **argv, struct show_opts *o)
{
	const char *s = optind < argc ? argv[optind] : NULL;

	if (!s || s[0] == '-')
		return 0;
	if (strcmp(s, "models") == 0)
		o->vo.kind = VIEW_TABLE_MODELS;
	else if (strcmp(s, "resources") != 0)
		return 0;
	optind++;
	return 0;
}

/* The positionals before the view options: VIEW PROFILE or PROFILE [VIEW]. */
static int positionals(int argc, char **argv, struct show_opts *o)
{
	if (optind >= argc) {
		cli_usage_error("show", "name a profile, and optionally a view");
		return -1;
	}
	if (is_view(argv[optind])) {
		set_view(o, argv[optind++]);
		if (strcmp(o->view, "tableof") == 0)
			tableof_subject(argc, argv, o);
		if (optind >= argc || argv[optind][0] == '-') {
			cli_usage_error("show", "which profile should the %s view show?", o->view);
			return -1;
		}
		o->spec = argv[optind++];
		if (strcmp(o->view, "tableof") == 0)
			tableof_subject(argc, argv, o); /* tableof PROFILE models */
		return 0;
	}
	o->spec = argv[optind++];
	if (optind < argc && argv[optind][0] != '-') {
		if (!is_view(argv[optind])) {
			cli_usage_error("show",
					"unknown view '%s': use summary, table, raw, memory, "
					"heapmap, tableof, bars, flow, scatter, flamegraph, "
					"histogram or bounds",
					argv[optind]);
			return -1;
		}
		set_view(o, argv[optind++]);
	}
	if (o->view && strcmp(o->view, "tableof") == 0)
		tableof_subject(argc, argv, o);
	return 0;
}

/* The text formats of table and summary; tableof's are its own. */
static int check_format(struct show_opts *o)
{
	if (!o->format)
		return 0;
	if (o->is_graph && o->vo.kind != VIEW_TABLE_RES && o->vo.kind != VIEW_TABLE_MODELS) {
		cli_usage_error("show",
				"--format is for tables: the %s view writes -o FILE.svg or "
				"FILE.html",
				o->view);
		return -1;
	}
	if (o->is_graph)
		return usage_err(view_parse_table_fmt(o->format, &o->vo.tfmt));
	return cli_parse_format("show", o->format, &o->fmt) < 0 ? -1 : 0;
}

static int parse_show_args(int argc, char **argv, struct show_opts *o)
{
	bool tableof;
	char **rest;
	int ret, nrest;

	view_opts_init(&o->vo, VIEW_BARS);
	optind = 0;
	ret = parse_options(argc, argv, "+m:n:o:a:hv", o);
	if (ret || (ret = positionals(argc, argv, o)))
		return ret;
	/* The view's options: everything after the positionals, parsed anew. */
	tableof = o->view && strcmp(o->view, "tableof") == 0;
	rest = argv + optind - 1;
	nrest = argc - optind + 1;
	optind = 0;
	ret = parse_options(nrest, rest, tableof ? "m:n:o:a:h:v" : "m:n:o:a:hv", o);
	if (ret)
		return ret;
	if (optind < nrest && !o->view && optind + 1 == nrest && is_view(rest[optind]) &&
	    !o->is_graph && strcmp(rest[optind], "tableof") != 0) {
		set_view(o, rest[optind++]);
		if (o->is_graph) {
			cli_usage_error("show", "the options of %s go after its name", o->view);
			return -1;
		}
	}
	if (optind < nrest) {
		cli_usage_error("show", "unexpected argument '%s'", rest[optind]);
		return -1;
	}
	if (!o->view)
		o->view = "summary";
	if (o->limit && o->is_graph) {
		if (o->vo.kind != VIEW_TABLE_RES && o->vo.kind != VIEW_TABLE_MODELS &&
		    o->vo.kind != VIEW_HISTOGRAM) {
			cli_usage_error("show", "--limit is for tables, not the %s view", o->view);
			return -1;
		}
		o->vo.limit = o->limit;
	}
	return check_format(o);
}

/* Perun's JSON, streamed: a ten-million-resource profile is never one
 * string in memory. */
static int show_raw(const struct profile *p, const struct show_opts *o)
{
	int ret;

	fflush(stdout);
	ret = profile_write_fd(p, STDOUT_FILENO, !o->compact);
	if (ret == 0 && o->compact && write(STDOUT_FILENO, "\n", 1) != 1)
		ret = err_set(ERR_IO, "cannot write profile: %s", strerror(errno));
	return ret < 0 ? cli_fail() : 0;
}

/* The terminal's width: $COLUMNS, the terminal's own, else 80. */
static int term_width(const struct cli_ctx *ctx)
{
	const char *cols = getenv("COLUMNS");
	struct winsize ws;

	if (cols && atoi(cols) >= 20)
		return atoi(cols);
	if (ctx->stdout_tty && ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		return ws.ws_col;
	return 80;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

/* tableof, bars, flow, scatter: rendered, then to stdout or -o FILE. */
static int show_view(struct cli_ctx *ctx, const struct profile *p, struct show_opts *o)
{
	enum view_target t = TARGET_TERM;
	struct buf out = BUF_INIT;
	int ret;

	if (o->output && ends_with(o->output, ".svg"))
		t = TARGET_SVG;
	else if (o->output && ends_with(o->output, ".html"))
		t = TARGET_HTML;
	else if (o->output && o->vo.kind != VIEW_TABLE_RES && o->vo.kind != VIEW_TABLE_MODELS)
		return cli_error("show: -o %s: name a .svg or an .html file", o->output), 2;
	o->vo.width = term_width(ctx);
	o->vo.color = ctx->stdout_tty && !o->output && !getenv("NO_COLOR");
	ret = view_render(p, &o->vo, t, &out);
	if (ret == 0 && o->output)
		ret = file_write_atomic(o->output, out.data, out.len);
	else if (ret == 0)
		fwrite(out.data, 1, out.len, stdout);
	buf_release(&out);
	return ret < 0 ? cli_fail() : 0;
}

/*
 * The flow of a memory profile, the seed's: the mean amount per allocation
 * site over the snapshots, stacked, not accumulated (--of amount --per
 * snapshot --by uid -a mean --stacked --no-accumulate), for each of those
 * options the user left out. A memory profile has no structure-unit-size.
 */
static void memory_flow_defaults(const struct profile *p, struct show_opts *o)
{
	struct view_opts *vo = &o->vo;

	if (vo->kind != VIEW_FLOW || !p->type || strcmp(p->type, "memory") != 0)
		return;
	if (!o->of_given)
		vo->of = "amount";
	if (!o->per_given)
		vo->per = "snapshot";
	if (!o->by_given)
		vo->by = "uid";
	if (!o->agg_given)
		vo->agg = AGG_MEAN;
	if (!o->stacked_given && !o->grouped_given)
		vo->stacked = true;
	if (!o->acc_given)
		vo->accumulate = false;
}

static int show_profile(struct cli_ctx *ctx, const struct profile *p, const char *name,
			struct show_opts *o)
{
	memory_flow_defaults(p, o);
	if (o->is_graph)
		return show_view(ctx, p, o);
	if (strcmp(o->view, "raw") == 0)
		return show_raw(p, o);
	if (strcmp(o->view, "table") == 0)
		show_table(p, o);
	else if (strcmp(o->view, "memory") == 0)
		return show_memory(p, name, o) < 0 ? 1 : 0;
	else if (strcmp(o->view, "heapmap") == 0)
		return show_heapmap(p, o, ctx->stdout_tty, term_width(ctx)) < 0 ? 1 : 0;
	else if (strcmp(o->view, "bounds") == 0)
		return show_bounds(ctx, p, term_width(ctx));
	else
		show_summary(p, name, o);
	return 0;
}

/* A `veles monitor -f` recording: its intervals' summary values, drawn over
 * time unless --per says otherwise. */
static int show_recording(struct cli_ctx *ctx, struct show_opts *o)
{
	struct profile *p;
	int ret;

	if (monitor_recording_profile(o->spec, cli_collect_message, NULL, &p) < 0)
		return cli_fail();
	if (!o->vo.per && (o->vo.kind == VIEW_FLOW || o->vo.kind == VIEW_SCATTER))
		o->vo.per = "time";
	ret = show_profile(ctx, p, o->spec, o);
	profile_free(p);
	return ret;
}

/* A `veles record` file: its samples as `record --profile` files them. */
static int show_samples(struct cli_ctx *ctx, struct show_opts *o)
{
	struct record_info ri = {.data_path = o->spec, .label = o->spec};
	struct profile *p;
	int ret;

	if (record_load_profile(&ri, &p) < 0)
		return cli_fail();
	ret = show_profile(ctx, p, o->spec, o);
	profile_free(p);
	return ret;
}

/* A profile file outside any project: read as it is. */
static int show_file(struct cli_ctx *ctx, struct show_opts *o)
{
	const char *slash = strrchr(o->spec, '/');
	struct profile *p;
	int ret;

	if (profile_load(o->spec, &p) < 0)
		return cli_fail();
	ret = show_profile(ctx, p, slash ? slash + 1 : o->spec, o);
	profile_free(p);
	return ret;
}

int cmd_show(struct cli_ctx *ctx, int argc, char **argv)
{
	struct show_opts o = {.snapshot = -1};
	struct profile_ref ref;
	struct profile *p;
	int ret;

	/* Perun's view options: where the picture goes, and its title. */
	cli_perun_short_opts(argc, argv,
			     (const char *const[]){"-gt", "--title", "--graph-title", "--title",
						   "--filename", "--output", "-of", "--output",
						   "--output-file", "--output", NULL});
	ret = parse_show_args(argc, argv, &o);

	if (ret)
		return ret > 0 ? 0 : 2;
	/* Files named by path are read without a project: recordings of
	 * record and monitor are no profile of any version. */
	if (mon_file_is_recording(o.spec))
		return show_recording(ctx, &o);
	if (record_file_is_recording(o.spec))
		return show_samples(ctx, &o);
	if (!ctx->vcs) {
		ret = ctx->root ? 0 : cli_find_root(ctx);
		if (ret < 0 && !o.rev && path_exists(o.spec) && !path_is_dir(o.spec)) {
			err_clear();
			return show_file(ctx, &o);
		}
		if (ret < 0 || cli_open_vcs(ctx) < 0) {
			cli_fail();
			return 2;
		}
	}
	if (ref_open(ctx, o.spec, o.rev, REF_DEFAULT_INDEX, &ref, &p) < 0)
		return cli_fail();
	ret = show_profile(ctx, p, ref_name(&ref), &o);
	profile_free(p);
	ref_release(&ref);
	return ret;
}
