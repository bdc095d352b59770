/* veles fuzz's options (docs/cli/fuzz.md), parsed from one table. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/fuzz-args.h"
#include "util/common.h"
#include "util/error.h"
#include "util/optparse.h"

static const char fuzz_about[] =
	"Performance fuzzing: mutates the seed inputs, runs COMMAND on each mutant,\n"
	"keeps the mutants that cost more or reach new code, and reports the\n"
	"costliest inputs found, their cost against the seeds' and how the cost\n"
	"grows with the input's length (a profile in .veles/jobs/ for\n"
	"`veles postprocess PROFILE regression-analysis`).\n"
	"\n"
	"The input is a file: `@@` in an argument (or an argument `%s`) is its\n"
	"path; without one it is COMMAND's stdin. The cost is instructions:u where\n"
	"the PMU counts them, else the task-clock CPU time. A program built with\n"
	"`clang $(veles cflags fuzz --link)` also reports its edge counts, and\n"
	"mutants that pass an edge more often than any before are kept (PerfFuzz).";

/* "90", "90s", "1.5m", "2h" into seconds; -1 when it is none of those. */
static double parse_duration(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0) || !isfinite(v))
		return -1;
	if (*end == 'm')
		v *= 60, end++;
	else if (*end == 'h')
		v *= 3600, end++;
	else if (*end == 's')
		end++;
	return *end ? -1 : v;
}

static int opt_input(void *ctx, const struct opt *opt, const char *arg)
{
	struct fuzz_args *a = ctx;

	UNUSED(opt);
	a->inputs = xrealloc(a->inputs, (a->ninputs + 1) * sizeof(*a->inputs));
	a->inputs[a->ninputs++] = arg;
	return 0;
}

/* --time and --timeout: a duration; --max-size-ratio: at least 1. */
static int opt_number(void *ctx, const struct opt *opt, const char *arg)
{
	struct fz_options *o = &((struct fuzz_args *)ctx)->o;
	const char *n = opt->long_name;
	char *end;

	if (strcmp(n, "time") == 0 && (o->time_limit = parse_duration(arg)) <= 0)
		return err_set(ERR_INVALID,
			       "fuzz: --time needs a duration such as 90, 90s, 15m or 2h, not '%s'",
			       arg);
	if (strcmp(n, "time") == 0)
		return 0;
	if (strcmp(n, "max-size-ratio") != 0) {
		o->timeout = parse_duration(arg);
		return o->timeout > 0
			       ? 0
			       : err_set(ERR_INVALID,
					 "fuzz: --timeout needs a positive number of seconds, "
					 "not '%s'",
					 arg);
	}
	errno = 0;
	o->max_size_ratio = strtod(arg, &end);
	if (errno || end == arg || *end || !(o->max_size_ratio >= 1) ||
	    !isfinite(o->max_size_ratio))
		return err_set(ERR_INVALID,
			       "fuzz: --max-size-ratio needs a number of at least 1, not '%s'",
			       arg);
	return 0;
}

static int opt_metric(void *ctx, const struct opt *opt, const char *arg)
{
	int m = fz_metric_from_name(arg);

	UNUSED(opt);
	if (m < 0)
		return err_set(ERR_INVALID,
			       "fuzz: --metric is auto, instructions, task-clock, rusage or hits, "
			       "not '%s'",
			       arg);
	((struct fuzz_args *)ctx)->o.metric = (enum fz_metric)m;
	return 0;
}

#define ALIAS(l, f)                                                                                \
	{                                                                                          \
		.kind = OPT_KIND_CALLBACK, .long_name = (l), .cb = (f), .flags = OPT_HIDDEN        \
	}

static int parse_table(struct fuzz_args *a, int argc, char **argv, int *n)
{
	struct fz_options *o = &a->o;
	long max_size = 0;
	struct opt opts[] = {
		OPT_CALLBACK('i', "input", "PATH", opt_input,
			     "a seed file, or a directory of them (repeat)"),
		ALIAS("input-sample", opt_input),
		OPT_STRING('o', "output-dir", &o->out_dir, "DIR",
			   "corpus/, worst/, crashes/, hangs/ and the state;\n"
			   "default .veles/fuzz/PROGRAM; an existing one is\n"
			   "resumed (then -i may be left out)"),
		OPT_CALLBACK('t', "time", "DURATION", opt_number,
			     "fuzz this long: 90, 90s, 15m, 2h (default 30m)"),
		OPT_LONG('n', "runs", &a->runs, "N", 1, "stop after N runs of COMMAND"),
		OPT_CALLBACK(0, "timeout", "S", opt_number,
			     "a run longer than S seconds is a hang (default\n"
			     "50 times the slowest seed's time, at least 1 s)"),
		ALIAS("hang-timeout", opt_number),
		OPT_LONG(0, "seed", &a->seed, "N", 0,
			 "the random seed: the same one makes the same\n"
			 "mutants (default: a fresh one, shown)"),
		OPT_STRING(0, "dict", &o->dict_path, "FILE",
			   "tokens to insert (AFL's format, or one a line)"),
		OPT_LONG('N', "max-size", &max_size, "BYTES", 1,
			 "no mutant longer than this; default 4 times the\n"
			 "largest seed (and 1024 bytes more at least)"),
		OPT_CALLBACK(0, "max-size-ratio", "R", opt_number,
			     "... the largest seed times R instead"),
		OPT_LONG(0, "max-size-increase", &a->increase, "B", 0,
			 "... the largest seed plus B bytes instead"),
		OPT_CALLBACK('m', "metric", "NAME", opt_metric,
			     "auto, instructions, task-clock, rusage, or hits\n"
			     "(edges passed, from an instrumented build)"),
		OPT_BOOL(0, "no-feedback", &a->no_feedback,
			 "plain random mutation of the seeds: nothing is\n"
			 "kept (a baseline to compare with)"),
		OPT_BOOL(0, "no-coverage", &a->no_coverage,
			 "ignore the edge counts of an instrumented build"),
		OPT_BOOL(0, "no-profile", &a->no_profile, "write no profile to .veles/jobs/"),
		OPT_STRING(0, "format", &a->format_name, "FMT",
			   "the report as text (default) or json"),
		OPT_BOOL('q', "quiet", &a->quiet, "no progress on stderr"),
		OPT_HELP_LINE(),
		OPT_END(),
	};
	struct optparse p = {
		"fuzz",	    "veles fuzz [OPTIONS] -i SEEDS [-i SEEDS...] -- COMMAND [ARGS...]",
		fuzz_about, opts,
		a,	    OPTP_STOP_AT_OPERAND};
	int ret;

	a->seed = a->increase = -1;
	ret = cli_parse_options(&p, argc, argv, n);
	o->max_size = (size_t)max_size;
	return ret;
}

int fuzz_parse_args(struct fuzz_args *a, int argc, char **argv)
{
	int ret, n;

	a->o.metric = FZ_METRIC_AUTO;
	if ((ret = parse_table(a, argc, argv, &n)))
		return ret;
	if (a->format_name && cli_parse_format("fuzz", a->format_name, &a->format) < 0)
		return 2;
	a->o.feedback = !a->no_feedback;
	a->o.coverage = !a->no_coverage;
	a->o.run_limit = a->runs > 0 ? (unsigned long)a->runs : 0;
	a->o.seed_set = a->seed >= 0;
	a->o.seed = a->o.seed_set ? (unsigned long)a->seed : 0;
	a->o.max_size_increase_set = a->increase >= 0;
	a->o.max_size_increase = a->increase >= 0 ? (size_t)a->increase : 0;
	if (!n)
		return cli_usage_error("fuzz",
				       "no command to fuzz (veles fuzz -i SEEDS -- CMD...)");
	a->o.argv = cli_argv_dup(argv + 1, n);
	if (!a->o.time_limit && !a->o.run_limit)
		a->o.time_limit = 30 * 60;
	if (a->o.max_size && (a->o.max_size_ratio > 0 || a->o.max_size_increase_set))
		return cli_usage_error("fuzz", "--max-size, --max-size-ratio and "
					       "--max-size-increase exclude each other");
	if (a->o.max_size_ratio > 0 && a->o.max_size_increase_set)
		return cli_usage_error("fuzz", "--max-size-ratio and --max-size-increase exclude "
					       "each other");
	return 0;
}
