/*
 * veles diff BASE TARGET [table]: two profiles side by side, one row per
 * location (or per value of --group-by), with the aggregated amounts and
 * the change, biggest changes first.
 */
#include <getopt.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/samples.h"
#include "analyze/stats.h"
#include "cli/cli.h"
#include "cli/diff-bounds.h"
#include "cli/envcheck.h"
#include "cli/select.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "view/diff_report.h"
#include "view/flamegraph.h"

static const char diff_usage[] =
	"usage: veles diff [options] BASE TARGET [table]\n"
	"       veles diff [-o FILE.svg] [--of KEY] [--negate] BASE TARGET flamegraph\n"
	"       veles diff [-o FILE.html] [--of KEY] [--aggregate F] BASE TARGET report\n"
	"\n"
	"Shows two profiles side by side: for each location (uid [subtype]) the\n"
	"aggregated amount in BASE and in TARGET and the change, largest changes\n"
	"first. BASE and TARGET are named as in `veles show` (N@i, N@p, a path, a\n"
	"name or an id prefix).\n"
	"\n"
	"  -n, --top N          at most N rows (default 20; 0 = all)\n"
	"  --aggregate F        sum, mean, median (default), min, max or count\n"
	"  --group-by KEY       group by this attribute (uid, subtype, type, ...)\n"
	"                       instead of the location\n"
	"  --of KEY             the value compared (default amount)\n"
	"  --filter REGEX       only groups whose name matches (extended regex)\n"
	"  --sort-by S          change (default: largest relative change either way),\n"
	"                       increase, decrease, baseline, target or name\n"
	"  --format F           text (default), json, csv or markdown\n"
	"  -m, --minor REV      look the profiles up in version REV (default: HEAD);\n"
	"                       given twice, the first for BASE, the second for TARGET\n"
	"  --force              compare profiles of different types or commands\n"
	"  --strict-env         refuse profiles measured in different environments\n"
	"                       (host, CPU, kernel, governor, VM, compiler), which is\n"
	"                       otherwise a warning\n"
	"\n"
	"flamegraph draws the call stacks of the resources' traces (memory profiles\n"
	"have them) as a differential flame graph in SVG: frame widths from TARGET,\n"
	"colour from each frame's change, red where it grew and blue where it shrank.\n"
	"  -o, --output FILE    write the SVG to FILE (default: standard output)\n"
	"  --negate             widths from BASE, so what disappeared shows\n"
	"\n"
	"report writes one self-contained HTML page (Perun's `showdiff report`): the\n"
	"two headers side by side, the change of every location (--aggregate, --of),\n"
	"each profile's locations by their share of its total, and the differential\n"
	"flame graph where there are call stacks.\n"
	"  -o, --output FILE    write it to FILE (`-` for standard output; default\n"
	"                       report-diff-of-BASE-and-TARGET.html here)\n"
	"\n"
	"`veles showdiff BASE TARGET VIEW` is the same command in Perun's spelling.\n";

enum agg { AGG_SUM, AGG_MEAN, AGG_MEDIAN, AGG_MIN, AGG_MAX, AGG_COUNT };
enum sort { SORT_CHANGE, SORT_INCREASE, SORT_DECREASE, SORT_BASELINE, SORT_TARGET, SORT_NAME };
enum fmt { FMT_TEXT, FMT_JSON, FMT_CSV, FMT_MARKDOWN };

struct diff_opts {
	unsigned long top;
	enum agg agg;
	enum sort sort;
	enum fmt fmt;
	const char *group_by, *of, *filter, *output;
	const char *rev[2]; /* -m: both sides, or one each when given twice */
	int nrev;
	bool flamegraph, negate, force, strict_env, report;
	regex_t re;
};

struct diff_row {
	const char *name;
	double base, target; /* NaN where the group is missing */
	double rel;	     /* target / base - 1; NaN when not defined */
};

static int pick(const char *cmd_opt, const char *arg, const char *const *names, size_t n, int *out)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(arg, names[i]) == 0) {
			*out = (int)i;
			return 0;
		}
	}
	return cli_usage_error("diff", "%s: unknown value '%s'", cmd_opt, arg);
}

static int parse_option(struct diff_opts *o, int c, char **argv)
{
	static const char *const aggs[] = {"sum", "mean", "median", "min", "max", "count"};
	static const char *const sorts[] = {"change",	"increase", "decrease",
					    "baseline", "target",   "name"};
	static const char *const fmts[] = {"text", "json", "csv", "markdown"};
	int v = 0, ret = 0;

	switch (c) {
	case 'n':
		return cli_parse_uint("diff", "--top", optarg, &o->top) < 0 ? 2 : 0;
	case 'a':
		ret = pick("--aggregate", optarg, aggs, ARRAY_SIZE(aggs), &v);
		o->agg = (enum agg)v;
		return ret;
	case 's':
		ret = pick("--sort-by", optarg, sorts, ARRAY_SIZE(sorts), &v);
		o->sort = (enum sort)v;
		return ret;
	case 'f':
		ret = pick("--format", optarg, fmts, ARRAY_SIZE(fmts), &v);
		o->fmt = (enum fmt)v;
		return ret;
	case 'g':
		o->group_by = optarg;
		return 0;
	case 'K':
		o->of = optarg;
		return 0;
	case 'r':
		o->filter = optarg;
		return 0;
	case 'm':
		if (o->nrev == 2)
			return cli_usage_error("diff", "-m at most twice: once for BASE, once "
						       "for TARGET");
		o->rev[o->nrev++] = optarg;
		return 0;
	case 'F':
		o->force = true;
		return 0;
	case 'O':
		o->output = optarg;
		return 0;
	case 'N':
		o->negate = true;
		return 0;
	case 'E':
		o->strict_env = true;
		return 0;
	default:
		return cli_bad_option("diff", argv);
	}
}

/* Returns -1 after --help, 0 to go on, or an exit status. */
static int parse_args(int argc, char **argv, struct diff_opts *o)
{
	static const struct option opts[] = {
		{"top", required_argument, NULL, 'n'},
		{"aggregate", required_argument, NULL, 'a'},
		{"sort-by", required_argument, NULL, 's'},
		{"format", required_argument, NULL, 'f'},
		{"group-by", required_argument, NULL, 'g'},
		{"of", required_argument, NULL, 'K'},
		{"filter", required_argument, NULL, 'r'},
		{"minor", required_argument, NULL, 'm'},
		{"output", required_argument, NULL, 'O'},
		{"negate", no_argument, NULL, 'N'},
		{"force", no_argument, NULL, 'F'},
		{"strict-env", no_argument, NULL, 'E'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, ret;

	o->top = 20;
	o->agg = AGG_MEDIAN;
	while ((c = getopt_long(argc, argv, "n:m:o:h", opts, NULL)) != -1) {
		if (c == 'o')
			c = 'O';
		if (c == 'h') {
			fputs(diff_usage, stdout);
			return -1;
		}
		ret = parse_option(o, c, argv);
		if (ret)
			return ret;
	}
	if (argc - optind < 2 || argc - optind > 3)
		return cli_usage_error("diff", "name BASE and TARGET, and optionally the view");
	if (argc - optind == 3 && strcmp(argv[optind + 2], "table") != 0 &&
	    strcmp(argv[optind + 2], "flamegraph") != 0 && strcmp(argv[optind + 2], "report") != 0)
		return cli_usage_error("diff", "unknown view '%s': use table, flamegraph or report",
				       argv[optind + 2]);
	o->flamegraph = argc - optind == 3 && strcmp(argv[optind + 2], "flamegraph") == 0;
	o->report = argc - optind == 3 && strcmp(argv[optind + 2], "report") == 0;
	if (o->filter && regcomp(&o->re, o->filter, REG_EXTENDED | REG_NOSUB) != 0)
		return cli_usage_error("diff", "--filter: bad regular expression '%s'", o->filter);
	return 0;
}

static double aggregate(const struct sample_group *g, enum agg a)
{
	double *tmp, v;

	switch (a) {
	case AGG_SUM:
		v = 0;
		for (size_t i = 0; i < g->n; i++)
			v += g->v[i];
		return v;
	case AGG_MEAN:
		return stats_mean(g->v, g->n);
	case AGG_MIN:
	case AGG_MAX:
		v = g->v[0];
		for (size_t i = 1; i < g->n; i++)
			v = a == AGG_MIN ? fmin(v, g->v[i]) : fmax(v, g->v[i]);
		return v;
	case AGG_COUNT:
		return (double)g->n;
	default:
		tmp = xcalloc(g->n, sizeof(*tmp));
		memcpy(tmp, g->v, g->n * sizeof(*tmp));
		v = stats_median_sort(tmp, g->n);
		free(tmp);
		return v;
	}
}

static const struct diff_opts *sort_opts;

/* Missing values sort last; ties by name. */
static int cmp_rows(const void *x, const void *y)
{
	const struct diff_row *a = x, *b = y;
	double ka, kb;

	switch (sort_opts->sort) {
	case SORT_NAME:
		return strcmp(a->name, b->name);
	case SORT_BASELINE:
		ka = -a->base, kb = -b->base;
		break;
	case SORT_TARGET:
		ka = -a->target, kb = -b->target;
		break;
	case SORT_INCREASE:
		ka = -a->rel, kb = -b->rel;
		break;
	case SORT_DECREASE:
		ka = a->rel, kb = b->rel;
		break;
	default:
		/* Symmetric on the ratio: halving is as big as doubling. */
		ka = -fabs(log1p(a->rel)), kb = -fabs(log1p(b->rel));
	}
	if (isnan(ka) != isnan(kb))
		return isnan(ka) ? 1 : -1;
	if (ka != kb && !isnan(ka))
		return ka < kb ? -1 : 1;
	return strcmp(a->name, b->name);
}

static bool keep(const struct diff_opts *o, const char *name)
{
	return !o->filter || regexec(&o->re, name, 0, NULL, 0) == 0;
}

/* Joins the two sorted group lists into rows. */
static size_t join_rows(const struct diff_opts *o, const struct sample_set *a,
			const struct sample_set *b, struct diff_row *rows)
{
	size_t i = 0, j = 0, n = 0;

	while (i < a->n || j < b->n) {
		int cmp = i == a->n   ? 1
			  : j == b->n ? -1
				      : strcmp(a->g[i].location, b->g[j].location);
		struct diff_row r = {cmp <= 0 ? a->g[i].location : b->g[j].location, NAN, NAN, NAN};

		if (cmp <= 0)
			r.base = aggregate(&a->g[i++], o->agg);
		if (cmp >= 0)
			r.target = aggregate(&b->g[j++], o->agg);
		if (r.base != 0 && !isnan(r.base) && !isnan(r.target))
			r.rel = r.target / r.base - 1;
		if (keep(o, r.name))
			rows[n++] = r;
	}
	return n;
}

static void add_num(struct buf *b, double v, const char *none)
{
	if (isnan(v))
		buf_adds(b, none);
	else
		buf_addf(b, "%.6g", v);
}

static void add_rel(struct buf *b, double rel, const char *none)
{
	if (isnan(rel))
		buf_adds(b, none);
	else
		buf_addf(b, "%+.1f%%", 100 * rel);
}

static void csv_field(struct buf *b, const char *s)
{
	buf_addc(b, '"');
	for (; *s; s++) {
		if (*s == '"')
			buf_addc(b, '"');
		buf_addc(b, *s);
	}
	buf_addc(b, '"');
}

static void print_rows(const struct diff_opts *o, const struct diff_row *rows, size_t n,
		       const char *bname, const char *tname)
{
	struct buf b = BUF_INIT;
	size_t w = 8;

	for (size_t i = 0; i < n; i++)
		w = strlen(rows[i].name) > w ? strlen(rows[i].name) : w;
	if (o->fmt == FMT_JSON)
		buf_adds(&b, "[");
	else if (o->fmt == FMT_CSV)
		buf_adds(&b, "name,baseline,target,change\n");
	else if (o->fmt == FMT_MARKDOWN)
		buf_adds(&b, "| name | baseline | target | change |\n|---|---:|---:|---:|\n");
	else
		buf_addf(&b, "%-*s %14s %14s %10s\n", (int)w,
			 o->group_by ? o->group_by : "location", "baseline", "target", "change");
	for (size_t i = 0; i < n; i++) {
		const struct diff_row *r = &rows[i];

		switch (o->fmt) {
		case FMT_JSON:
			buf_adds(&b, i ? ",\n{\"name\":" : "\n{\"name\":");
			buf_add_json_str(&b, r->name, strlen(r->name));
			buf_adds(&b, ",\"baseline\":");
			add_num(&b, r->base, "null");
			buf_adds(&b, ",\"target\":");
			add_num(&b, r->target, "null");
			buf_adds(&b, ",\"rel_change\":");
			if (isnan(r->rel))
				buf_adds(&b, "null");
			else
				buf_addf(&b, "%.6g", r->rel);
			buf_addc(&b, '}');
			break;
		case FMT_CSV:
			csv_field(&b, r->name);
			buf_addc(&b, ',');
			add_num(&b, r->base, "");
			buf_addc(&b, ',');
			add_num(&b, r->target, "");
			buf_addc(&b, ',');
			if (!isnan(r->rel))
				buf_addf(&b, "%.6g", r->rel);
			buf_addc(&b, '\n');
			break;
		case FMT_MARKDOWN:
			buf_adds(&b, "| ");
			for (const char *s = r->name; *s; s++)
				buf_adds(&b, *s == '|' ? "\\|" : (char[2]){*s, 0});
			buf_adds(&b, " | ");
			add_num(&b, r->base, "–");
			buf_adds(&b, " | ");
			add_num(&b, r->target, "–");
			buf_adds(&b, " | ");
			add_rel(&b, r->rel, "–");
			buf_adds(&b, " |\n");
			break;
		default: {
			struct buf cell = BUF_INIT;

			buf_addf(&b, "%-*s ", (int)w, r->name);
			add_num(&cell, r->base, "-");
			buf_addf(&b, "%14s ", buf_str(&cell));
			buf_reset(&cell);
			add_num(&cell, r->target, "-");
			buf_addf(&b, "%14s ", buf_str(&cell));
			buf_reset(&cell);
			add_rel(&cell, r->rel,
				isnan(r->base)	   ? "new"
				: isnan(r->target) ? "gone"
						   : "-");
			buf_addf(&b, "%10s\n", buf_str(&cell));
			buf_release(&cell);
		}
		}
	}
	if (o->fmt == FMT_JSON)
		buf_adds(&b, "\n]\n");
	else if (o->fmt == FMT_TEXT)
		buf_addf(&b, "(%s -> %s)\n", bname, tname);
	fwrite(b.data, 1, b.len, stdout);
	buf_release(&b);
}

static int diff_flamegraph(const struct diff_opts *o, struct profile *p[2], const char *names[2])
{
	struct flame_opts fo = {.of = o->of, .negate = o->negate};
	struct buf b = BUF_INIT;
	char *title = xasprintf("%s -> %s", names[0], names[1]);
	int ret;

	fo.title = title;
	ret = flamegraph_svg(p[0], p[1], &fo, &b);
	if (ret == 0 && o->output)
		ret = file_write_atomic(o->output, b.data, b.len);
	else if (ret == 0)
		fwrite(b.data, 1, b.len, stdout);
	buf_release(&b);
	free(title);
	if (ret < 0)
		return cli_fail();
	if (o->output)
		fprintf(stderr, "flame graph written to %s\n", o->output);
	return 0;
}

/* A name for the report file: the profile's, without ".perf". */
static char *stem(const char *name)
{
	const char *slash = strrchr(name, '/');
	size_t n;

	name = slash ? slash + 1 : name;
	n = strlen(name);
	if (n > 5 && strcmp(name + n - 5, ".perf") == 0)
		n -= 5;
	return xstrndup(name, n);
}

static int diff_report(const struct diff_opts *o, struct profile *p[2], const char *names[2])
{
	struct report_opts ro = {{names[0], names[1]}, o->of, (enum report_agg)o->agg};
	struct buf b = BUF_INIT;
	char *file = NULL;
	int ret = diff_report_html(p[0], p[1], &ro, &b);

	if (ret == 0 && o->output && strcmp(o->output, "-") == 0) {
		fwrite(b.data, 1, b.len, stdout);
		buf_release(&b);
		return 0;
	}
	if (ret == 0 && !o->output) {
		char *a = stem(names[0]), *t = stem(names[1]);

		file = xasprintf("report-diff-of-%s-and-%s.html", a, t);
		free(a);
		free(t);
	}
	if (ret == 0)
		ret = file_write_atomic(file ? file : o->output, b.data, b.len);
	if (ret == 0)
		fprintf(stderr, "report written to %s\n", file ? file : o->output);
	buf_release(&b);
	free(file);
	return ret < 0 ? cli_fail() : 0;
}

/* Whether @name is a field of @p's resources, measured or persistent. */
static bool has_field(const struct profile *p, const char *name)
{
	return table_col(&p->res, name) || table_col(&p->types, name);
}

static int diff_loaded(const struct diff_opts *o, struct profile *p[2], const char *names[2])
{
	struct sample_set s[2];
	struct diff_row *rows;
	size_t n;

	for (int i = 0; i < 2; i++)
		samples_build_by(p[i], o->of, o->group_by, &s[i]);
	/* A misspelt --of would otherwise print an empty table and pass. */
	if (o->of && s[0].n == 0 && s[1].n == 0) {
		samples_free(&s[0]);
		samples_free(&s[1]);
		return cli_error("no resource of either profile has a numeric '%s'", o->of);
	}
	rows = xcalloc(s[0].n + s[1].n + 1, sizeof(*rows));
	n = join_rows(o, &s[0], &s[1], rows);
	sort_opts = o;
	qsort(rows, n, sizeof(*rows), cmp_rows);
	if (o->top && n > o->top)
		n = o->top;
	print_rows(o, rows, n, names[0], names[1]);
	free(rows);
	for (int i = 0; i < 2; i++)
		samples_free(&s[i]);
	return 0;
}

int cmd_diff(struct cli_ctx *ctx, int argc, char **argv)
{
	struct diff_opts o = {0};
	struct profile_ref refs[2];
	struct profile *p[2] = {NULL, NULL};
	const char *names[2];
	struct buf label[2] = {BUF_INIT, BUF_INIT};
	int ret = parse_args(argc, argv, &o);

	if (ret)
		return ret < 0 ? 0 : ret;
	memset(refs, 0, sizeof(refs));
	for (int i = 0; i < 2 && ret == 0; i++) {
		/* -m once: both sides; twice: each side its own version. */
		const char *rev = o.nrev == 2 ? o.rev[i] : o.rev[0];

		ret = ref_open(ctx, argv[optind + i], rev, REF_DEFAULT_INDEX, &refs[i], &p[i]);
		if (ret == 0) {
			ref_label(&label[i], ref_id(&refs[i]), ref_name(&refs[i]),
				  refs[i].kind == REF_STORED ? refs[i].version : NULL);
			names[i] = buf_str(&label[i]);
		} else {
			ret = cli_fail();
		}
	}
	/* The same profile twice compares nothing, which +0.0% would hide. */
	if (ret == 0 && refs[0].kind == REF_STORED && refs[1].kind == REF_STORED &&
	    strcmp(ref_id(&refs[0]), ref_id(&refs[1])) == 0 &&
	    strcmp(argv[optind], argv[optind + 1]) == 0)
		cli_warn("BASE and TARGET are the same profile (%s); -m twice gives each its "
			 "version",
			 names[0]);
	if (ret == 0 && !o.force &&
	    profile_comparable(p[0], ref_name(&refs[0]), p[1], ref_name(&refs[1])) < 0)
		ret = cli_error("%s (--force compares them anyway)", err_msg()) + 1;
	if (ret == 0 && cli_env_check(p[0], names[0], p[1], names[1], o.strict_env) < 0)
		ret = cli_fail() + 1;
	if (ret == 0 && o.of && !has_field(p[0], o.of) && !has_field(p[1], o.of))
		ret = cli_error("no resource of either profile has '%s'", o.of);
	/* Bounds profiles measure no amounts: their bounds are compared. */
	if (ret == 0 && !o.flamegraph && !o.report && !o.of && !o.group_by && diff_is_bounds(p))
		diff_bounds_print(p, names, (int)o.fmt, o.top);
	else if (ret == 0)
		ret = o.flamegraph ? diff_flamegraph(&o, p, names)
		      : o.report   ? diff_report(&o, p, names)
				   : diff_loaded(&o, p, names);
	for (int i = 0; i < 2; i++) {
		profile_free(p[i]);
		ref_release(&refs[i]);
		buf_release(&label[i]);
	}
	if (o.filter)
		regfree(&o.re);
	return ret;
}
