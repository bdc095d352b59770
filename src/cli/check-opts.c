/* veles check's options: one table, which also writes its --help. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/metric.h"
#include "cli/check.h"
#include "cli/cli.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/optparse.h"

/* Options whose value is a number in an open range, by name. */
static int set_number(void *ctx, const struct opt *o, const char *arg)
{
	static const struct {
		const char *name;
		double lo, hi;
	} ranges[] = {{"alpha", 0, 0.5},
		      {"min-effect", -1e-300, 10},
		      {"severe", 0, 100},
		      {"aat-threshold", 1, 1e9},
		      {"time", 0, 1e7}};
	char *end;
	double v = strtod(arg, &end);

	UNUSED(ctx);
	for (size_t i = 0; i < ARRAY_SIZE(ranges); i++) {
		if (strcmp(o->long_name, ranges[i].name) != 0)
			continue;
		if (end == arg || *end || !(v > ranges[i].lo && v < ranges[i].hi))
			return err_set(ERR_INVALID,
				       "check: --%s wants a number in (%g, %g), not '%s'",
				       o->long_name, ranges[i].lo, ranges[i].hi, arg);
	}
	*(double *)o->value = v;
	return 0;
}

/* Whole-number options within bounds: --rounds, --seed, --max-chars,
 * --max-rounds. */
static int set_count(void *ctx, const struct opt *o, const char *arg)
{
	struct check_cli *c = ctx;
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-')
		return err_set(ERR_INVALID, "check: --%s wants a whole number, not '%s'",
			       o->long_name, arg);
	if (strcmp(o->long_name, "rounds") == 0) {
		if (n < 100 || n > 1000000)
			return err_set(ERR_INVALID, "check: --rounds wants 100 to 1000000");
		c->cp.bootstrap_rounds = (unsigned)n;
	} else if (strcmp(o->long_name, "max-rounds") == 0) {
		if (n < 1 || n > 100000)
			return err_set(ERR_INVALID, "check: --max-rounds wants 1 to 100000");
		c->max_rounds = n;
	} else if (strcmp(o->long_name, "seed") == 0) {
		c->cp.seed = n;
		c->seeded = true;
	} else {
		c->max_chars = n;
	}
	return 0;
}

static int set_method(void *ctx, const struct opt *o, const char *arg)
{
	const char *const *names = check_method_names();
	struct check_cli *c = ctx;
	struct buf b = BUF_INIT;
	int ret;

	UNUSED(o);
	if ((c->method = check_method_canonical(arg)))
		return 0;
	for (size_t i = 0; names[i]; i++)
		buf_addf(&b, "%s%s", i == 0 ? "" : names[i + 1] ? ", " : " or ", names[i]);
	ret = err_set(ERR_INVALID, "check: unknown method '%s': use %s", arg, buf_str(&b));
	buf_release(&b);
	return ret;
}

static int set_choice(void *ctx, const struct opt *o, const char *arg)
{
	struct check_cli *c = ctx;
	int v;

	switch (o->long_name[0]) {
	case 'm': /* models-type */
		if ((v = model_pairing_parse(arg)) < 0)
			return err_set(ERR_INVALID,
				       "check: --models-type: unknown strategy '%s' (best-model, "
				       "best-param, best-nonparam, all-param, all-nonparam, "
				       "all-models, best-both)",
				       arg);
		c->cp.pairing = (enum model_pairing)v;
		return 0;
	case 'f': /* format, fail-on */
		if (o->long_name[1] == 'o' ? check_parse_format(arg, &c->fmt) < 0
					   : check_parse_fail_on(arg, &c->fail_from) < 0)
			return err_set(ERR_INVALID, "check: %s", err_msg());
		return 0;
	case 't': /* test */
		if (strcmp(arg, "mann-whitney") != 0 && strcmp(arg, "welch") != 0)
			return err_set(ERR_INVALID,
				       "check: unknown test '%s': use mann-whitney or welch", arg);
		c->cp.test = arg[0] == 'w' ? TEST_WELCH : TEST_MANN_WHITNEY;
		return 0;
	default: /* on */
		if (!metric_known(arg))
			return err_set(ERR_INVALID,
				       "check: --on wants instructions, cycles, cpu, real, user or "
				       "sys, not '%s'",
				       arg);
		c->on = arg;
		return 0;
	}
}

static int set_strict(void *ctx, const struct opt *o, const char *arg)
{
	UNUSED(o), UNUSED(arg);
	((struct check_cli *)ctx)->fail_from = CH_MAYBE_DEGRADATION;
	return 0;
}

#define OPT_VALUE(s, l, v, a, f, h)                                                                \
	{                                                                                          \
		.kind = OPT_KIND_CALLBACK, .short_name = (s), .long_name = (l), .value = (v),      \
		.argh = (a), .cb = (f), .help = (h)                                                \
	}

static const char check_about[] =
	"Compares profiles and reports, for each location (uid and subtype), whether\n"
	"the target degraded or improved against the baseline, by how much, and how\n"
	"sure that is. `head` compares each profile of REV (default HEAD) with the\n"
	"profile of its parent version(s) that has the same configuration (type,\n"
	"command, arguments, workload, collector, postprocessors); `all` does that\n"
	"for every version in the history. Exit status: 0 when nothing surely\n"
	"degraded, 1 when something did (a Degradation, Severe or Total; see\n"
	"--fail-on), 2 on error (as when there is nothing to compare). The summary\n"
	"line ends with what fails the check, so it says what the status does.";

int check_parse_args(int argc, char **argv, struct check_cli *o, int *nop)
{
	const struct opt opts[] = {
		OPT_CALLBACK(0, "method", "M", set_method,
			     "stat (default): a rank test (or Welch's t) on repeated\n"
			     "measurements with a bootstrap interval of the change;\n"
			     "aat: Perun's average amount threshold; eto: outliers\n"
			     "among the locations' changes in exclusive time; on the\n"
			     "profiles' models: bmoe (best model order), int\n"
			     "(integrals), loc (local means), fast (mean relative gap),\n"
			     "lreg and preg (the gap fitted by a line, a polynomial);\n"
			     "bounds (the default for bounds profiles): each loop's\n"
			     "class, a rise is a TotalDegradation;\n"
			     "Perun's full names too (average_amount_threshold, ...)"),
		OPT_CALLBACK('m', "models-type", "S", set_choice,
			     "the model methods: which models of the two profiles\n"
			     "are paired, as Perun's strategies: best-model (the best\n"
			     "of each side), best-param, best-nonparam, all-param\n"
			     "(every parametric kind with the same kind), all-nonparam,\n"
			     "all-models, best-both (best-param, then best-nonparam);\n"
			     "default: parametric when both sides have some, else a\n"
			     "non-parametric kind both have"),
		OPT_CALLBACK(0, "format", "F", set_choice,
			     "text (default), json, markdown or junit"),
		OPT_VALUE(0, "alpha", &o->cp.alpha, "A", set_number,
			  "significance level, and 1 - the interval's level (0.05)"),
		OPT_VALUE(0, "min-effect", &o->cp.min_effect, "E", set_number,
			  "smallest relative change that counts (0.02 = 2%)"),
		OPT_VALUE(0, "severe", &o->cp.severe, "E", set_number,
			  "relative change from which it is severe (0.25)"),
		OPT_CALLBACK(0, "test", "T", set_choice,
			     "stat's test: mann-whitney (default) or welch"),
		OPT_CALLBACK(0, "rounds", "N", set_count, "bootstrap resamples (2000)"),
		OPT_CALLBACK(0, "seed", "N", set_count, "bootstrap seed, for repeatable intervals"),
		OPT_VALUE(0, "aat-threshold", &o->cp.aat_degradation, "R", set_number,
			  "aat: ratio of means that degrades (2.0); 1/R optimises"),
		OPT_BOOL('c', "collect-missing", &o->collect_missing,
			 "(Perun's --compute-missing; the setting\n"
			 "degradation.collect_before_check turns it on)\n"
			 "head, all: when a parent has no profile of a configuration,\n"
			 "collect it there first (temporary worktree, execute.pre_run,\n"
			 "the job of config.yml's matrix that makes it) and register\n"
			 "it with the parent; a configuration no job makes is\n"
			 "collected with the profile's own recipe only with --yes\n"
			 "or when you say so (asked on a terminal)"),
		{.kind = OPT_KIND_BOOL,
		 .long_name = "compute-missing",
		 .value = &o->collect_missing,
		 .help = "",
		 .flags = OPT_HIDDEN},
		OPT_BOOL('y', "yes", &o->collect->yes,
			 "--collect-missing may run a profile's own recipe (its\n"
			 "command comes from the profile, which may not be yours)"),
		OPT_CALLBACK(0, "fail-on", "L", set_choice,
			     "what fails the check: maybe (a MaybeDegradation or\n"
			     "worse), degradation (default) or severe (Severe, Total)"),
		OPT_FLAG_CALLBACK(0, "strict", set_strict, "--fail-on maybe"),
		OPT_BOOL('f', "force", &o->force,
			 "compare profiles of different types or commands"),
		OPT_CALLBACK(0, "max-chars", "N", set_count,
			     "markdown: cut the detail, then whole configurations, to\n"
			     "fit N characters, saying what was cut (default 60000,\n"
			     "a pull request comment; 0: no limit)"),
		OPT_BOOL('v', "verbose", &o->verbose,
			 "a location compared size by size (a workload generator's\n"
			 "profile) lists each size's comparison; configurations\n"
			 "are named with their postprocessors' parameters"),
		OPT_CALLBACK(0, "on", "METRIC", set_choice,
			     "what a time profile is judged on: instructions, cycles,\n"
			     "cpu, real, user or sys; default: the most stable one\n"
			     "both sides have, in that order (docs/cli/check.md)"),
		OPT_BOOL(0, "strict-env", &o->strict_env,
			 "refuse to compare profiles measured in different\n"
			 "environments (host, CPU, kernel, governor, VM, compiler),\n"
			 "which is otherwise a warning"),
		OPT_BOOL(0, "remeasure", &o->remeasure,
			 "head: build REV and its parent in temporary worktrees and\n"
			 "measure both now, each job of the matrix in interleaved\n"
			 "rounds (both once a round, in random order), until a\n"
			 "sequential test is sure or the budget is spent; the\n"
			 "profiles are left pending for `veles add`"),
		OPT_CALLBACK(0, "max-rounds", "N", set_count,
			     "--remeasure: at most N rounds per job (default 100)"),
		OPT_VALUE(0, "time", &o->max_seconds, "S", set_number,
			  "--remeasure: stop after S seconds per job"),
		OPT_BOOL('q', "quiet", &o->quiet_progress, "no progress lines on stderr"),
		OPT_END(),
	};
	const struct optparse p = {
		.name = "check",
		.usage = "veles check [options] profiles BASE TARGET\n"
			 "veles check [options] head [REV]\n"
			 "veles check [options] all",
		.about = check_about,
		.opts = opts,
		.ctx = o,
	};
	int ret;

	check_params_default(&o->cp);
	o->max_rounds = 100;
	o->fail_from = CH_DEGRADATION;
	o->max_chars = CHECK_MARKDOWN_MAX;
	ret = cli_parse_options(&p, argc, argv, nop);
	o->cp.aat_optimization = 1 / o->cp.aat_degradation;
	return ret;
}
