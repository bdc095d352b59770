/*
 * veles check profiles BASE TARGET | head [REV] | all: was a version
 * slower than its parent? Pairs each profile with the parent's profile of
 * the same configuration and compares them location by location.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analyze/degrade.h"
#include "analyze/metric.h"
#include "cli/check-remeasure.h"
#include "cli/check.h"
#include "cli/cli.h"
#include "cli/envcheck.h"
#include "cli/select.h"
#include "profile/profile.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "vcs/vcs.h"

static const char check_usage[] =
	"usage: veles check [options] profiles BASE TARGET\n"
	"       veles check [options] head [REV]\n"
	"       veles check [options] all\n"
	"\n"
	"Compares profiles and reports, for each location (uid and subtype), whether\n"
	"the target degraded or improved against the baseline, by how much, and how\n"
	"sure that is. `head` compares each profile of REV (default HEAD) with the\n"
	"profile of its parent version(s) that has the same configuration (type,\n"
	"command, arguments, workload, collector, postprocessors); `all` does that\n"
	"for every version in the history. Exit status: 0 when nothing surely\n"
	"degraded, 1 when something did (a Degradation, Severe or Total; see\n"
	"--fail-on), 2 on error (as when there is nothing to compare). The summary\n"
	"line ends with what fails the check, so it says what the status does.\n"
	"\n"
	"  --method M         stat (default): a rank test (or Welch's t) on repeated\n"
	"                     measurements with a bootstrap interval of the change;\n"
	"                     aat: Perun's average amount threshold; eto: outliers\n"
	"                     among the locations' changes in exclusive time; on the\n"
	"                     profiles' models: bmoe (best model order), int\n"
	"                     (integrals), loc (local means), fast (mean relative gap),\n"
	"                     lreg and preg (the gap fitted by a line, a polynomial);\n"
	"                     bounds (the default for bounds profiles): each loop's\n"
	"                     class, a rise is a TotalDegradation;\n"
	"                     Perun's full names too (average_amount_threshold, ...)\n"
	"  -m, --models-type S  the model methods: which models of the two profiles\n"
	"                     are paired, as Perun's strategies: best-model (the best\n"
	"                     of each side), best-param, best-nonparam, all-param\n"
	"                     (every parametric kind with the same kind), all-nonparam,\n"
	"                     all-models, best-both (best-param, then best-nonparam);\n"
	"                     default: parametric when both sides have some, else a\n"
	"                     non-parametric kind both have\n"
	"  --format F         text (default), json, markdown or junit\n"
	"  --alpha A          significance level, and 1 - the interval's level (0.05)\n"
	"  --min-effect E     smallest relative change that counts (0.02 = 2%)\n"
	"  --severe E         relative change from which it is severe (0.25)\n"
	"  --test T           stat's test: mann-whitney (default) or welch\n"
	"  --rounds N         bootstrap resamples (2000)\n"
	"  --seed N           bootstrap seed, for repeatable intervals\n"
	"  --aat-threshold R  aat: ratio of means that degrades (2.0); 1/R optimises\n"
	"  -c, --collect-missing  (Perun's --compute-missing; the setting\n"
	"                     degradation.collect_before_check turns it on)\n"
	"                     head, all: when a parent has no profile of a configuration,\n"
	"                     collect it there first (temporary worktree, execute.pre_run,\n"
	"                     the job of config.yml's matrix that makes it) and register\n"
	"                     it with the parent; a configuration no job makes is\n"
	"                     collected with the profile's own recipe only with --yes\n"
	"                     or when you say so (asked on a terminal)\n"
	"  -y, --yes          --collect-missing may run a profile's own recipe (its\n"
	"                     command comes from the profile, which may not be yours)\n"
	"  --fail-on L        what fails the check: maybe (a MaybeDegradation or\n"
	"                     worse), degradation (default) or severe (Severe, Total)\n"
	"  --strict           --fail-on maybe\n"
	"  -f, --force        compare profiles of different types or commands\n"
	"  --max-chars N      markdown: cut the detail, then whole configurations, to\n"
	"                     fit N characters, saying what was cut (default 60000,\n"
	"                     a pull request comment; 0: no limit)\n"
	"  -v, --verbose      a location compared size by size (a workload generator's\n"
	"                     profile) lists each size's comparison; configurations\n"
	"                     are named with their postprocessors' parameters\n"
	"  --on METRIC        what a time profile is judged on: instructions, cycles,\n"
	"                     cpu, real, user or sys; default: the most stable one\n"
	"                     both sides have, in that order (docs/cli/check.md)\n"
	"  --strict-env       refuse to compare profiles measured in different\n"
	"                     environments (host, CPU, kernel, governor, VM, compiler),\n"
	"                     which is otherwise a warning\n"
	"  --remeasure        head: build REV and its parent in temporary worktrees and\n"
	"                     measure both now, each job of the matrix in interleaved\n"
	"                     rounds (both once a round, in random order), until a\n"
	"                     sequential test is sure or the budget is spent; the\n"
	"                     profiles are left pending for `veles add`\n"
	"  --max-rounds N     --remeasure: at most N rounds per job (default 100)\n"
	"  --time S           --remeasure: stop after S seconds per job\n"
	"  -q, --quiet        no progress lines on stderr\n";

struct check_cli {
	const char *method;		    /* --method, or NULL: degradation.strategies decide */
	struct check_strategies strategies; /* when no --method */
	bool collect_missing;
	struct check_collect *collect; /* --collect-missing: what may run */
	enum change_class fail_from;   /* --fail-on, --strict */
	bool force, verbose;
	const char *on; /* --on, or NULL: the most stable metric both have */
	bool strict_env, remeasure, seeded;
	unsigned long max_rounds;
	double max_seconds;
	bool quiet_progress;
	size_t max_chars; /* --max-chars */
	enum check_format fmt;
	struct check_params cp;
};

enum {
	OPT_METHOD = 0x100,
	OPT_FORMAT,
	OPT_ALPHA,
	OPT_MIN_EFFECT,
	OPT_SEVERE,
	OPT_TEST,
	OPT_ROUNDS,
	OPT_SEED,
	OPT_AAT,
	OPT_COLLECT,
	OPT_STRICT,
	OPT_FAIL_ON,
	OPT_FORCE,
	OPT_MAX_CHARS,
	OPT_ON,
	OPT_STRICT_ENV,
	OPT_REMEASURE,
	OPT_MAX_ROUNDS,
	OPT_TIME,
	OPT_MODELS,
};

static int parse_fraction(const char *opt, const char *arg, double lo, double hi, double *out)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v > lo && v < hi))
		return cli_usage_error("check", "%s wants a number in (%g, %g), not '%s'", opt, lo,
				       hi, arg);
	*out = v;
	return 0;
}

static int unknown_method(const char *arg)
{
	const char *const *names = check_method_names();
	struct buf b = BUF_INIT;
	int ret;

	for (size_t i = 0; names[i]; i++)
		buf_addf(&b, "%s%s", i == 0 ? "" : names[i + 1] ? ", " : " or ", names[i]);
	ret = cli_usage_error("check", "unknown method '%s': use %s", arg, buf_str(&b));
	buf_release(&b);
	return ret;
}

static int parse_value(struct check_cli *o, int opt, const char *arg)
{
	unsigned long n;

	switch (opt) {
	case OPT_METHOD:
		if (!check_method_canonical(arg))
			return unknown_method(arg);
		o->method = check_method_canonical(arg);
		return 0;
	case OPT_MODELS:
		if (model_pairing_parse(arg) < 0)
			return cli_usage_error(
				"check",
				"--models-type: unknown strategy '%s' (best-model, "
				"best-param, best-nonparam, all-param, all-nonparam, "
				"all-models, best-both)",
				arg);
		o->cp.pairing = (enum model_pairing)model_pairing_parse(arg);
		return 0;
	case OPT_FORMAT:
		return check_parse_format(arg, &o->fmt) < 0
			       ? cli_usage_error("check", "%s", err_msg())
			       : 0;
	case OPT_ALPHA:
		return parse_fraction("--alpha", arg, 0, 0.5, &o->cp.alpha);
	case OPT_MIN_EFFECT:
		return parse_fraction("--min-effect", arg, -1e-300, 10, &o->cp.min_effect);
	case OPT_SEVERE:
		return parse_fraction("--severe", arg, 0, 100, &o->cp.severe);
	case OPT_AAT:
		if (parse_fraction("--aat-threshold", arg, 1, 1e9, &o->cp.aat_degradation))
			return 2;
		o->cp.aat_optimization = 1 / o->cp.aat_degradation;
		return 0;
	case OPT_TEST:
		if (strcmp(arg, "mann-whitney") == 0)
			o->cp.test = TEST_MANN_WHITNEY;
		else if (strcmp(arg, "welch") == 0)
			o->cp.test = TEST_WELCH;
		else
			return cli_usage_error("check",
					       "unknown test '%s': use mann-whitney or welch", arg);
		return 0;
	case OPT_FAIL_ON:
		return check_parse_fail_on(arg, &o->fail_from) < 0
			       ? cli_usage_error("check", "%s", err_msg())
			       : 0;
	case OPT_ROUNDS:
		if (cli_parse_uint("check", "--rounds", arg, &n) < 0)
			return 2;
		if (n < 100 || n > 1000000)
			return cli_usage_error("check", "--rounds wants 100 to 1000000");
		o->cp.bootstrap_rounds = (unsigned)n;
		return 0;
	case OPT_MAX_CHARS:
		if (cli_parse_uint("check", "--max-chars", arg, &n) < 0)
			return 2;
		o->max_chars = n;
		return 0;
	case OPT_ON:
		if (!metric_known(arg))
			return cli_usage_error(
				"check",
				"--on wants instructions, cycles, cpu, real, user or sys, not '%s'",
				arg);
		o->on = arg;
		return 0;
	case OPT_MAX_ROUNDS:
		if (cli_parse_uint("check", "--max-rounds", arg, &o->max_rounds) < 0)
			return 2;
		if (o->max_rounds < 1 || o->max_rounds > 100000)
			return cli_usage_error("check", "--max-rounds wants 1 to 100000");
		return 0;
	case OPT_TIME:
		return parse_fraction("--time", arg, 0, 1e7, &o->max_seconds);
	default: /* OPT_SEED */
		if (cli_parse_uint("check", "--seed", arg, &n) < 0)
			return 2;
		o->cp.seed = n;
		o->seeded = true;
		return 0;
	}
}

/* Returns -1 after --help, 0 to go on, or an exit status. */
static int parse_args(int argc, char **argv, struct check_cli *o)
{
	static const struct option opts[] = {
		{"method", required_argument, NULL, OPT_METHOD},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"alpha", required_argument, NULL, OPT_ALPHA},
		{"min-effect", required_argument, NULL, OPT_MIN_EFFECT},
		{"severe", required_argument, NULL, OPT_SEVERE},
		{"test", required_argument, NULL, OPT_TEST},
		{"rounds", required_argument, NULL, OPT_ROUNDS},
		{"seed", required_argument, NULL, OPT_SEED},
		{"aat-threshold", required_argument, NULL, OPT_AAT},
		{"collect-missing", no_argument, NULL, OPT_COLLECT},
		{"compute-missing", no_argument, NULL, OPT_COLLECT},
		{"models-type", required_argument, NULL, OPT_MODELS},
		{"strict", no_argument, NULL, OPT_STRICT},
		{"fail-on", required_argument, NULL, OPT_FAIL_ON},
		{"force", no_argument, NULL, OPT_FORCE},
		{"max-chars", required_argument, NULL, OPT_MAX_CHARS},
		{"verbose", no_argument, NULL, 'v'},
		{"on", required_argument, NULL, OPT_ON},
		{"strict-env", no_argument, NULL, OPT_STRICT_ENV},
		{"remeasure", no_argument, NULL, OPT_REMEASURE},
		{"max-rounds", required_argument, NULL, OPT_MAX_ROUNDS},
		{"time", required_argument, NULL, OPT_TIME},
		{"yes", no_argument, NULL, 'y'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, ret;

	check_params_default(&o->cp);
	o->max_rounds = 100;
	o->fail_from = CH_DEGRADATION;
	o->max_chars = CHECK_MARKDOWN_MAX;
	while ((c = getopt_long(argc, argv, "hqvycfm:", opts, NULL)) != -1) {
		if (c == 'c')
			c = OPT_COLLECT;
		else if (c == 'f')
			c = OPT_FORCE;
		else if (c == 'm')
			c = OPT_MODELS;
		if (c == 'h') {
			fputs(check_usage, stdout);
			return -1;
		}
		if (c == OPT_STRICT_ENV || c == OPT_REMEASURE) {
			*(c == OPT_REMEASURE ? &o->remeasure : &o->strict_env) = true;
			continue;
		}
		if (c == 'y') {
			o->collect->yes = true;
			continue;
		}
		if (c == OPT_STRICT)
			o->fail_from = CH_MAYBE_DEGRADATION;
		if (c == OPT_COLLECT || c == OPT_STRICT || c == OPT_FORCE || c == 'q' || c == 'v') {
			*(c == 'q'	   ? &o->quiet_progress
			  : c == 'v'	   ? &o->verbose
			  : c == OPT_FORCE ? &o->force
					   : &o->collect_missing) = c != OPT_STRICT;
			continue;
		}
		if (c == '?' || c == ':')
			return cli_bad_option("check", argv);
		ret = parse_value(o, c, optarg);
		if (ret)
			return ret;
	}
	return 0;
}

static int compare_into(struct check_report *r, const struct check_cli *o,
			const struct profile *base, const char *base_name,
			const struct profile *target, const char *target_name)
{
	const struct check_opts co = {o->method, &o->strategies, o->on, o->cp};
	struct check_pair *pair;
	int ret;

	ret = cli_env_check(base, base_name, target, target_name, o->strict_env);
	if (ret < 0)
		return ret;
	pair = check_report_add(r);
	pair->baseline_name = xstrdup(base_name);
	pair->target_name = xstrdup(target_name);
	pair->config = profile_config_title(target);
	pair->config_full = profile_config_title_full(target);
	pair->config_key = profile_config_key(target);
	return check_compare_pair(&co, base, base_name, target, target_name, &pair->changes);
}

static int finish(struct check_report *r, const struct check_cli *o, bool colour)
{
	size_t failing, unjudged;
	const char *note;
	struct buf why = BUF_INIT, out = BUF_INIT;

	/* Two sides without a location in common compared nothing: not a pass. */
	for (size_t i = 0; i < r->n; i++) {
		if (check_pair_disjoint(&r->pairs[i], &why)) {
			cli_error("%s", buf_str(&why));
			buf_release(&why);
			check_report_free(r);
			return 2;
		}
	}
	r->fail_from = o->fail_from;
	r->verbose = o->verbose;
	r->max_chars = o->max_chars;
	check_render(&out, r, o->fmt, colour);
	fwrite(out.data, 1, out.len, stdout);
	buf_release(&out);
	unjudged = check_report_unjudged(r, &note);
	/* On stderr too, where a CI log shows it even beside --format junit. */
	if (unjudged)
		cli_warn("%zu result%s could not be judged (%s)", unjudged,
			 unjudged == 1 ? "" : "s", note);
	failing = check_report_failing(r);
	check_report_free(r);
	return failing ? 1 : 0;
}

static int check_profiles(struct cli_ctx *ctx, const struct check_cli *o, char **specs)
{
	struct profile_ref refs[2];
	struct profile *p[2] = {NULL, NULL};
	struct check_report r = {0};
	int ret = 0;

	memset(refs, 0, sizeof(refs));
	for (int i = 0; i < 2 && ret == 0; i++) {
		if (ctx->store) {
			ret = ref_open(ctx, specs[i], NULL, REF_DEFAULT_INDEX, &refs[i], &p[i]);
			continue;
		}
		/* Outside a project: two files, as `veles show FILE` reads one. */
		refs[i].kind = REF_FILE;
		refs[i].path = xstrdup(specs[i]);
		ret = profile_load(specs[i], &p[i]);
	}
	if (ret == 0 && !o->force &&
	    profile_comparable(p[0], ref_name(&refs[0]), p[1], ref_name(&refs[1])) < 0) {
		cli_error("%s (--force compares them anyway)", err_msg());
		ret = 2;
	}
	if (ret == 0)
		ret = compare_into(&r, o, p[0], ref_name(&refs[0]), p[1], ref_name(&refs[1]));
	for (int i = 0; i < 2 && ret == 0; i++) {
		if (refs[i].kind != REF_STORED)
			continue;
		memcpy(i ? r.pairs[0].target_version : r.pairs[0].baseline_version, refs[i].version,
		       41);
		memcpy(i ? r.pairs[0].target_id : r.pairs[0].baseline_id, ref_id(&refs[i]), 41);
	}
	for (int i = 0; i < 2; i++) {
		profile_free(p[i]);
		ref_release(&refs[i]);
	}
	if (ret) {
		check_report_free(&r);
		if (ret < 0)
			cli_fail();
		return 2;
	}
	return finish(&r, o, ctx->stdout_tty);
}

/* Compares target profile @i with its match in each parent; *@matched
 * says whether any parent had one. */
static int pair_with_parents(const struct check_cli *o, const struct vcs_version *ver,
			     const struct version_profiles *target, size_t i,
			     const struct version_profiles *parents, size_t np,
			     struct check_report *r, bool *matched)
{
	int ret = 0;

	*matched = false;
	for (size_t k = 0; k < np && ret == 0; k++) {
		ssize_t j = version_profiles_find(&parents[k], target->key[i]);

		if (j < 0)
			continue;
		*matched = true;
		ret = compare_into(r, o, parents[k].p[j], parents[k].e[j].name, target->p[i],
				   target->e[i].name);
		memcpy(r->pairs[r->n - 1].baseline_version, ver->parents[k], 41);
		memcpy(r->pairs[r->n - 1].target_version, ver->id, 41);
		memcpy(r->pairs[r->n - 1].baseline_id, parents[k].e[j].blob, 41);
		memcpy(r->pairs[r->n - 1].target_id, target->e[i].blob, 41);
	}
	return ret;
}

/* --collect-missing: measure the first parent, then look again. */
static int collect_and_pair(struct cli_ctx *ctx, const struct check_cli *o,
			    const struct vcs_version *ver, const struct version_profiles *target,
			    size_t i, struct version_profiles *parents, struct check_report *r,
			    bool *matched)
{
	int ret = check_collect_missing(ctx, o->collect, target->p[i], target->e[i].name,
					ver->parents[0]);

	if (ret == 1) /* nothing ran (said why, or the user said no) */
		return 0;
	if (ret == 0) {
		version_profiles_free(&parents[0]);
		ret = version_profiles_load(ctx->store, ver->parents[0], &parents[0]);
	}
	if (ret == 0)
		ret = pair_with_parents(o, ver, target, i, parents, 1, r, matched);
	if (ret == 0 && !*matched)
		cli_warn("the profile collected on %.7s does not match %s's configuration",
			 ver->parents[0], target->e[i].name);
	return ret;
}

/* Compares every profile of @version with its match in the parents. */
static int check_version(struct cli_ctx *ctx, const struct check_cli *o,
			 const struct vcs_version *ver, struct check_report *r)
{
	struct version_profiles target = {0}, parents[4];
	size_t np = ver->nparents < 4 ? ver->nparents : 4;
	int ret = version_profiles_load(ctx->store, ver->id, &target);

	memset(parents, 0, sizeof(parents));
	for (size_t k = 0; k < np && ret == 0; k++)
		ret = version_profiles_load(ctx->store, ver->parents[k], &parents[k]);
	for (size_t i = 0; i < target.n && ret == 0; i++) {
		bool matched;

		ret = pair_with_parents(o, ver, &target, i, parents, np, r, &matched);
		if (ret == 0 && !matched && o->collect_missing && np > 0)
			ret = collect_and_pair(ctx, o, ver, &target, i, parents, r, &matched);
		if (ret == 0 && !matched) {
			char *title = profile_config_title(target.p[i]);

			check_report_unmatched(r, target.e[i].name, title, ver->id);
			free(title);
		}
	}
	version_profiles_free(&target);
	for (size_t k = 0; k < np; k++)
		version_profiles_free(&parents[k]);
	return ret;
}

/* --remeasure: REV and its parent measured now, interleaved. */
static int remeasure(struct cli_ctx *ctx, const struct check_cli *o, const char *id,
		     struct check_report *r)
{
	struct check_remeasure_args a = {
		.max_rounds = o->max_rounds,
		.max_seconds = o->max_seconds,
		/* Random unless --seed asks for a repeatable order. */
		.seed = o->seeded ? o->cp.seed : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32),
		.on = o->on,
		.cp = o->cp,
		.strict_env = o->strict_env,
		.quiet = o->quiet_progress,
	};

	return check_remeasure(ctx, &a, id, r);
}

static int check_head(struct cli_ctx *ctx, const struct check_cli *o, const char *rev)
{
	struct check_report r = {0};
	struct vcs_version ver;
	char id[41];

	if (rev && cli_resolve_version(ctx, rev, id) < 0)
		return 2;
	if (!rev && !cli_head(ctx, id)) {
		cli_error("no version yet: nothing to check");
		return 2;
	}
	if (o->remeasure) {
		if (remeasure(ctx, o, id, &r) < 0) {
			check_report_free(&r);
			return 2;
		}
		return finish(&r, o, ctx->stdout_tty);
	}
	if (vcs_version_info(ctx->vcs, id, &ver) < 0 || check_version(ctx, o, &ver, &r) < 0) {
		check_report_free(&r);
		cli_fail();
		return 2;
	}
	/* Every profile of the version is either paired or without a baseline. */
	if (r.n == 0 && r.without_baseline == 0) {
		check_report_free(&r);
		cli_error("no profile registered to version %.7s: nothing to check (collect one "
			  "and `veles add` it)",
			  id);
		return 2;
	}
	return finish(&r, o, ctx->stdout_tty);
}

struct walk_state {
	struct cli_ctx *ctx;
	const struct check_cli *o;
	struct check_report *r;
};

static int check_one(const struct vcs_version *ver, void *arg)
{
	struct walk_state *w = arg;

	return check_version(w->ctx, w->o, ver, w->r);
}

static int check_all(struct cli_ctx *ctx, const struct check_cli *o)
{
	struct check_report r = {0};
	struct walk_state w = {ctx, o, &r};
	char id[41];

	if (!cli_head(ctx, id)) {
		cli_error("no version yet: nothing to check");
		return 2;
	}
	if (vcs_walk(ctx->vcs, NULL, 0, check_one, &w) < 0) {
		check_report_free(&r);
		cli_fail();
		return 2;
	}
	if (r.n == 0 && r.without_baseline == 0) {
		check_report_free(&r);
		cli_error("no profile registered to any version: nothing to check");
		return 2;
	}
	return finish(&r, o, ctx->stdout_tty);
}

/* profiles BASE TARGET, head [REV] or all (@args[0] is the mode); returns
 * the exit status. */
static int check_mode(struct cli_ctx *ctx, const struct check_cli *o, int nargs, char **args)
{
	const char *mode = args[0];

	if (o->remeasure && strcmp(mode, "head") != 0)
		return cli_usage_error("check", "--remeasure is for head [REV]");
	if (o->remeasure && (o->method || o->collect_missing))
		return cli_usage_error("check",
				       "--remeasure judges by its own sequential test on "
				       "fresh measurements: drop %s",
				       o->method ? "--method" : "--collect-missing");
	if (strcmp(mode, "profiles") == 0) {
		if (nargs != 3)
			return cli_usage_error("check", "profiles wants BASE and TARGET");
		return check_profiles(ctx, o, args + 1);
	}
	if (strcmp(mode, "head") == 0) {
		if (nargs > 2)
			return cli_usage_error("check", "head takes at most one revision");
		return check_head(ctx, o, nargs == 2 ? args[1] : NULL);
	}
	if (strcmp(mode, "all") == 0) {
		if (nargs != 1)
			return cli_usage_error("check", "all takes no arguments");
		return check_all(ctx, o);
	}
	return cli_usage_error("check", "unknown mode '%s': use profiles, head or all", mode);
}

/* `profiles FILE FILE` with both files there: no project needed. */
static bool profiles_outside(const char *mode, int nargs, char **args)
{
	return strcmp(mode, "profiles") == 0 && nargs == 3 && path_exists(args[1]) &&
	       !path_is_dir(args[1]) && path_exists(args[2]) && !path_is_dir(args[2]);
}

int cmd_check(struct cli_ctx *ctx, int argc, char **argv)
{
	struct check_collect collect = {0};
	struct check_cli o = {.collect = &collect};
	int ret = parse_args(argc, argv, &o);
	int nargs = argc - optind;
	const char *mode = nargs > 0 ? argv[optind] : NULL;

	if (ret)
		return ret < 0 ? 0 : ret;
	collect.quiet = o.quiet_progress;
	collect.ask = isatty(STDIN_FILENO) && isatty(STDERR_FILENO);
	if (!mode)
		return cli_usage_error("check", "say what to check: profiles, head or all");
	/* Two profile files compare anywhere (as `veles show FILE` shows
	 * one); the rest needs the project. */
	if (cli_find_root(ctx) == 0 ? cli_open_vcs(ctx) < 0
				    : !profiles_outside(mode, nargs, argv + optind)) {
		cli_fail();
		return 2;
	}
	err_clear();
	/* Perun's settings for collecting before a check. */
	o.collect_missing = o.collect_missing ||
			    cli_config_bool(ctx, "degradation.collect_before_check", false);
	collect.log = cli_config_bool(ctx, "degradation.log_collect", false);
	if (!o.method && check_strategies_load(&ctx->project, &o.strategies) < 0) {
		cli_fail();
		return 2;
	}
	ret = check_mode(ctx, &o, nargs, argv + optind);
	check_strategies_free(&o.strategies);
	check_collect_release(&collect);
	return ret;
}
