/*
 * veles diff BASE TARGET [table]: two profiles side by side, one row per
 * location (or per value of --group-by), with the aggregated amounts and
 * the change, biggest changes first (analyze/diff_join.h, view/diff_rows.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/diff.h"
#include "cli/envcheck.h"
#include "cli/select.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/optparse.h"
#include "view/bounds_diff.h"

static int pick(const char *opt, const char *arg, const char *const *names, size_t n, int *out)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(arg, names[i]) == 0) {
			*out = (int)i;
			return 0;
		}
	}
	return err_set(ERR_INVALID, "diff: %s: unknown value '%s'", opt, arg);
}

static int set_aggregate(void *ctx, const struct opt *o, const char *arg)
{
	static const char *const names[] = {"sum", "mean", "median", "min", "max", "count"};
	struct diff_opts *d = ctx;
	int v = 0, ret = pick("--aggregate", arg, names, ARRAY_SIZE(names), &v);

	UNUSED(o);
	d->jo.agg = (enum diff_agg)v;
	return ret;
}

static int set_sort(void *ctx, const struct opt *o, const char *arg)
{
	static const char *const names[] = {"change",	"increase", "decrease",
					    "baseline", "target",   "name"};
	struct diff_opts *d = ctx;
	int v = 0, ret = pick("--sort-by", arg, names, ARRAY_SIZE(names), &v);

	UNUSED(o);
	d->jo.sort = (enum diff_sort)v;
	return ret;
}

static int set_format(void *ctx, const struct opt *o, const char *arg)
{
	static const char *const names[] = {"text", "json", "csv", "markdown"};
	struct diff_opts *d = ctx;
	int v = 0, ret = pick("--format", arg, names, ARRAY_SIZE(names), &v);

	UNUSED(o);
	d->fmt = (enum diff_format)v;
	return ret;
}

static int add_rev(void *ctx, const struct opt *o, const char *arg)
{
	struct diff_opts *d = ctx;

	UNUSED(o);
	if (d->nrev == 2)
		return err_set(ERR_INVALID,
			       "diff: -m at most twice: once for BASE, once for TARGET");
	d->rev[d->nrev++] = arg;
	return 0;
}

/* The operands: BASE TARGET [table|flamegraph|report]. */
static int check_operands(struct diff_opts *o, int nop, char **ops)
{
	const char *view = nop == 3 ? ops[2] : "table";

	if (nop < 2 || nop > 3)
		return cli_usage_error("diff", "name BASE and TARGET, and optionally the view");
	if (strcmp(view, "table") != 0 && strcmp(view, "flamegraph") != 0 &&
	    strcmp(view, "report") != 0)
		return cli_usage_error("diff", "unknown view '%s': use table, flamegraph or report",
				       view);
	o->flamegraph = strcmp(view, "flamegraph") == 0;
	o->report = strcmp(view, "report") == 0;
	if (o->filter && regcomp(&o->re, o->filter, REG_EXTENDED | REG_NOSUB) != 0)
		return cli_usage_error("diff", "--filter: bad regular expression '%s'", o->filter);
	o->jo.filter = o->filter ? &o->re : NULL;
	o->jo.top = (size_t)o->top;
	return 0;
}

/* Returns -1 after --help, 0 to go on, or an exit status. */
static int parse_args(int argc, char **argv, struct diff_opts *o, int *nop)
{
	const struct opt opts[] = {
		OPT_LONG('n', "top", &o->top, "N", 0, "at most N rows (default 20; 0 = all)"),
		OPT_CALLBACK(0, "aggregate", "F", set_aggregate,
			     "sum, mean, median (default), min, max or count"),
		OPT_STRING(0, "group-by", &o->jo.group_by, "KEY",
			   "group by this attribute (uid, subtype, type, ...)\n"
			   "instead of the location"),
		OPT_STRING(0, "of", &o->jo.of, "KEY", "the value compared (default amount)"),
		OPT_STRING(0, "filter", &o->filter, "REGEX",
			   "only groups whose name matches (extended regex)"),
		OPT_CALLBACK(0, "sort-by", "S", set_sort,
			     "change (default: largest relative change either way),\n"
			     "increase, decrease, baseline, target or name"),
		OPT_CALLBACK(0, "format", "F", set_format, "text (default), json, csv or markdown"),
		OPT_CALLBACK('m', "minor", "REV", add_rev,
			     "look the profiles up in version REV (default: HEAD);\n"
			     "given twice, the first for BASE, the second for TARGET"),
		OPT_BOOL(0, "force", &o->force, "compare profiles of different types or commands"),
		OPT_BOOL(0, "strict-env", &o->strict_env,
			 "refuse profiles measured in different environments\n"
			 "(host, CPU, kernel, governor, VM, compiler), which is\n"
			 "otherwise a warning"),
		OPT_GROUP("flamegraph draws the call stacks of the resources' traces (memory "
			  "profiles\n"
			  "have them) as a differential flame graph in SVG: frame widths from "
			  "TARGET,\n"
			  "colour from each frame's change, red where it grew and blue where it "
			  "shrank.\n"
			  "In a browser a click zooms into a frame, a search box highlights frames "
			  "and\n"
			  "sums their share, and the tooltip gives both values and the change.\n"
			  "report writes one self-contained HTML page (Perun's `showdiff report`): "
			  "the\n"
			  "two headers side by side, the change of every location (--aggregate, "
			  "--of),\n"
			  "each profile's locations by their share of its total, and the "
			  "differential\n"
			  "flame graph where there are call stacks."),
		OPT_STRING('o', "output", &o->output, "FILE",
			   "flamegraph: write the SVG to FILE, or a page holding it\n"
			   "to FILE.html (default: the SVG on standard output);\n"
			   "report: write it to FILE (`-` for standard output;\n"
			   "default report-diff-of-BASE-and-TARGET.html here)"),
		OPT_BOOL(0, "negate", &o->negate,
			 "flamegraph: widths from BASE, so what disappeared shows"),
		OPT_END(),
	};
	const struct optparse p = {
		.name = "diff",
		.usage = "veles diff [options] BASE TARGET [table]\n"
			 "veles diff [-o FILE.svg|FILE.html] [--of KEY] [--negate] BASE TARGET "
			 "flamegraph\n"
			 "veles diff [-o FILE.html] [--of KEY] [--aggregate F] BASE TARGET report",
		.about =
			"Shows two profiles side by side: for each location (uid [subtype]) the\n"
			"aggregated amount in BASE and in TARGET and the change, largest changes\n"
			"first. BASE and TARGET are named as in `veles show` (N@i, N@p, a path, a\n"
			"name or an id prefix). `veles showdiff BASE TARGET VIEW` is the same\n"
			"command in Perun's spelling.",
		.opts = opts,
		.ctx = o,
	};
	int ret;

	o->top = 20;
	o->jo.agg = DIFF_MEDIAN;
	if ((ret = cli_parse_options(&p, argc, argv, nop)) != 0)
		return ret;
	return check_operands(o, *nop, argv + 1);
}

/* Whether @name is a field of @p's resources, measured or persistent. */
static bool has_field(const struct profile *p, const char *name)
{
	return table_col(&p->res, name) || table_col(&p->types, name);
}

int cmd_diff(struct cli_ctx *ctx, int argc, char **argv)
{
	struct diff_opts o = {0};
	struct profile_ref refs[2];
	struct profile *p[2] = {NULL, NULL};
	const char *names[2];
	struct buf label[2] = {BUF_INIT, BUF_INIT};
	int nop, ret = parse_args(argc, argv, &o, &nop);

	if (ret) {
		if (o.filter && o.jo.filter)
			regfree(&o.re);
		return ret < 0 ? 0 : ret;
	}
	memset(refs, 0, sizeof(refs));
	for (int i = 0; i < 2 && ret == 0; i++) {
		/* -m once: both sides; twice: each side its own version. */
		const char *rev = o.nrev == 2 ? o.rev[i] : o.rev[0];

		ret = ref_open(ctx, argv[1 + i], rev, REF_DEFAULT_INDEX, &refs[i], &p[i]);
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
	    strcmp(ref_id(&refs[0]), ref_id(&refs[1])) == 0 && strcmp(argv[1], argv[2]) == 0)
		cli_warn("BASE and TARGET are the same profile (%s); -m twice gives each its "
			 "version",
			 names[0]);
	if (ret == 0 && !o.force &&
	    profile_comparable(p[0], ref_name(&refs[0]), p[1], ref_name(&refs[1])) < 0)
		ret = cli_error("%s (--force compares them anyway)", err_msg()) + 1;
	if (ret == 0 && cli_env_check(p[0], names[0], p[1], names[1], o.strict_env) < 0)
		ret = cli_fail() + 1;
	if (ret == 0 && o.jo.of && !has_field(p[0], o.jo.of) && !has_field(p[1], o.jo.of))
		ret = cli_error("no resource of either profile has '%s'", o.jo.of);
	/* Bounds profiles measure no amounts: their bounds are compared. */
	if (ret == 0 && !o.flamegraph && !o.report && !o.jo.of && !o.jo.group_by &&
	    diff_is_bounds(p))
		diff_bounds(&o, p, names);
	else if (ret == 0)
		ret = o.flamegraph ? diff_flamegraph(&o, p, names)
		      : o.report   ? diff_report(&o, p, names)
				   : diff_loaded(&o, p, names);
	for (int i = 0; i < 2; i++) {
		profile_free(p[i]);
		ref_release(&refs[i]);
		buf_release(&label[i]);
	}
	if (o.jo.filter)
		regfree(&o.re);
	return ret;
}
