/*
 * veles bisect --good REV --bad REV [options] -- CMD [ARGS...]: finds the
 * first commit on the first-parent line from good to bad whose runs of CMD
 * are slower than good's (run/bisect.h does the search); here the
 * options, the two versions, and what it says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/envcheck.h"
#include "run/bisect.h"
#include "run/bisect_job.h"
#include "util/common.h"
#include "util/error.h"
#include "util/optparse.h"
#include "util/spawn.h"
#include "vcs/vcs.h"

static void say(void *arg, enum bisect_say kind, const char *text)
{
	UNUSED(arg);
	if (kind == BISECT_RESULT) {
		printf("%s\n", text);
		fflush(stdout);
	} else {
		fprintf(stderr, "bisect: %s\n", text);
	}
}

static int env_check(void *arg, const struct env_info *good, const struct env_info *e,
		     const char *name)
{
	const struct bisect *b = arg;

	return cli_env_check_info(good, "the good version", e, name, b->strict_env);
}

static void report(const struct bisect *b, const struct bisect_outcome *o)
{
	struct vcs_version ver;

	if (vcs_version_info(b->vcs, o->first, &ver) == 0)
		printf("%s is the first slow commit: %s\n", ver.id, ver.summary);
	if (b->job) {
		printf("  %s %+.1f%% against %.7s (%s, %zu and %zu values)\n",
		       change_class_name(o->cls), 100 * o->rel, b->good_id,
		       bisect_job_location(b->job), o->ngood, o->nfirst);
		return;
	}
	printf("  %s %+.1f%% against %.7s (%s time, %zu and %zu %s)\n", change_class_name(o->cls),
	       100 * o->rel, b->good_id, bisect_on_name(b->on), o->ngood, o->nfirst,
	       b->interleave ? "runs, interleaved" : "runs");
}

static int set_on(void *ctx, const struct opt *o, const char *arg)
{
	UNUSED(o);
	return bisect_set_on(ctx, arg);
}

static int set_fraction(void *ctx, const struct opt *o, const char *arg)
{
	UNUSED(ctx);
	return bisect_parse_fraction(o->long_name, arg, o->value);
}

static int set_no_interleave(void *ctx, const struct opt *o, const char *arg)
{
	UNUSED(o), UNUSED(arg);
	((struct bisect *)ctx)->interleave = false;
	return 0;
}

static const char bisect_about[] =
	"Finds the first commit between REV good and REV bad (following first\n"
	"parents) that made COMMAND slower. Each version is checked out once in a\n"
	"temporary worktree and built with --build (default: execute.pre_run from\n"
	"config.yml). Bad must be slower than good: the two are measured in\n"
	"interleaved rounds (each round runs both once, in random order) until a\n"
	"sequential test on the rounds' paired ratios is sure that bad is slower, by\n"
	"--min-effect or more as far as it can tell. Each candidate is then\n"
	"measured in rounds together with good and bad, and is like bad when its\n"
	"time surely lies above the midpoint between theirs in the same rounds, like\n"
	"good when below; so a machine that gets busier during the search slows all\n"
	"three alike. Your working tree is never touched. With --job, each\n"
	"measurement runs a collector job as `veles run job` does (`time -r 5 --\n"
	"./prog 100`), and the median of one location of its profile is the value.";

static int check_operands(struct bisect *b, int nop, char **ops)
{
	if (bisect_check(b, nop ? ops[0] : NULL) < 0)
		return cli_usage_error("bisect", "%s", err_msg());
	/* A NULL-terminated command line: the options follow the operands. */
	b->cmd = xcalloc((size_t)nop + 1, sizeof(*b->cmd));
	memcpy(b->cmd, ops, (size_t)nop * sizeof(*ops));
	return 0;
}

/* Returns -1 after --help, 0 to go on, or an exit status. */
static int parse_args(int argc, char **argv, struct bisect *b)
{
	long runs = (long)b->runs, max_runs = (long)b->max_runs, seed = -1;
	const struct opt opts[] = {
		OPT_STRING(0, "good", &b->good_rev, "REV", "a version known to be fast"),
		OPT_STRING(0, "bad", &b->bad_rev, "REV", "a later version known to be slow"),
		OPT_STRING(0, "build", &b->build, "CMD",
			   "shell command that builds a checkout (run in it)"),
		OPT_LONG('r', "runs", &runs, "N", 0,
			 "rounds before the first decision (default 10)"),
		OPT_LONG(0, "max-runs", &max_runs, "N", 0,
			 "most rounds for one decision before giving up (default 100)"),
		OPT_CALLBACK(0, "on", "TIME", set_on,
			     "what decides: cpu (the task clock, default where the\n"
			     "kernel allows it; else user), user, real or sys; with\n"
			     "--job, the location containing [TIME] by default"),
		OPT_STRING(0, "job", &b->job_spec, "SPEC",
			   "measure with a collector job instead of timing COMMAND"),
		OPT_STRING(0, "location", &b->location, "KEY",
			   "--job: the location compared (equal to KEY, or the only\n"
			   "one containing it)"),
		{.kind = OPT_KIND_CALLBACK,
		 .long_name = "min-effect",
		 .value = &b->cp.min_effect,
		 .argh = "E",
		 .cb = set_fraction,
		 .help = "smallest relative slowdown of bad that counts (0.02)"},
		{.kind = OPT_KIND_CALLBACK,
		 .long_name = "alpha",
		 .value = &b->cp.alpha,
		 .argh = "A",
		 .cb = set_fraction,
		 .help = "significance level (default 0.05)"},
		OPT_LONG(0, "seed", &seed, "N", 0,
			 "the rounds' random order, for a repeatable bisect"),
		OPT_BOOL(0, "strict-env", &b->strict_env,
			 "refuse when a version is built with another compiler\n"
			 "than good (otherwise a warning)"),
		OPT_FLAG_CALLBACK(0, "no-interleave", set_no_interleave,
				  "measure good and bad once at the start and each\n"
				  "candidate later against those numbers (the old way)"),
		OPT_BOOL('q', "quiet", &b->quiet, "no progress lines on stderr"),
		OPT_GROUP(
			"Exit status: 0 when the first slow commit was found, 1 when the versions\n"
			"cannot be told apart (or bad is not slower than good), 2 on error."),
		OPT_END(),
	};
	const struct optparse p = {
		.name = "bisect",
		.usage = "veles bisect --good REV --bad REV [options] -- COMMAND [ARGS...]\n"
			 "veles bisect --good REV --bad REV [options] --job 'COLLECTOR [OPTIONS] "
			 "-- \n"
			 "             COMMAND [ARGS...]' [--location KEY]",
		.about = bisect_about,
		.opts = opts,
		.ctx = b,
		.flags = OPTP_STOP_AT_OPERAND,
	};
	int nop, ret;

	ret = cli_parse_options(&p, argc, argv, &nop);
	b->runs = (unsigned long)runs;
	b->max_runs = (unsigned long)max_runs;
	if (seed >= 0)
		b->seed = (uint64_t)seed;
	return ret ? ret : check_operands(b, nop, argv + 1);
}

/* After the options: resolve, then search; returns the exit status. */
static int bisect_run(struct cli_ctx *ctx, struct bisect *b)
{
	struct bisect_outcome out;
	char bad[41];
	int ret = bisect_prepare(b, &ctx->project, bad);

	if (ret < 0)
		return ret == ERR_INVALID ? cli_usage_error("bisect", "%s", err_msg())
					  : cli_fail() + 1;
	spawn_signals_install();
	ret = bisect_find(b, bad, &out);
	spawn_signals_restore();
	if (ret < 0) {
		cli_fail();
		return 2;
	}
	if (ret == 0 && out.found)
		report(b, &out);
	return ret == 0 && !out.found ? 1 : ret;
}

int cmd_bisect(struct cli_ctx *ctx, int argc, char **argv)
{
	struct bisect b = {.say = say, .env_check = env_check};
	int ret;

	b.arg = &b;
	bisect_defaults(&b);
	if ((ret = parse_args(argc, argv, &b)) != 0) {
		free(b.cmd);
		return ret < 0 ? 0 : ret;
	}
	if (bisect_metric(&b) < 0)
		ret = cli_usage_error("bisect", "%s", err_msg());
	else if (b.job)
		bisect_job_set_message(b.job, cli_collect_message, NULL);
	if (ret == 0)
		ret = bisect_run(ctx, &b);
	bisect_release(&b);
	free(b.cmd);
	return ret;
}
