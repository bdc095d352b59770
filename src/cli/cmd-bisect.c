/*
 * veles bisect --good REV --bad REV [options] -- CMD [ARGS...]: finds the
 * first commit on the first-parent line from good to bad whose runs of CMD
 * are slower than good's, building each version once in a temporary
 * worktree and measuring each candidate interleaved with good and bad
 * until a sequential test is sure or says it cannot tell (bisect.h).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vcs/git_lazy.h"

#include "analyze/degrade.h"
#include "analyze/hypo.h"
#include "analyze/stats.h"
#include "cli/bisect-job.h"
#include "cli/bisect.h"
#include "cli/cli.h"
#include "run/run.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/spawn.h"
#include "vcs/vcs.h"

static const char bisect_usage[] =
	"usage: veles bisect --good REV --bad REV [options] -- COMMAND [ARGS...]\n"
	"       veles bisect --good REV --bad REV [options] --job 'COLLECTOR [OPTIONS] -- \n"
	"                    COMMAND [ARGS...]' [--location KEY]\n"
	"\n"
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
	"./prog 100`), and the median of one location of its profile is the value.\n"
	"\n"
	"  --good REV        a version known to be fast\n"
	"  --bad REV         a later version known to be slow\n"
	"  --build CMD       shell command that builds a checkout (run in it)\n"
	"  -r, --runs N      rounds before the first decision (default 10)\n"
	"  --max-runs N      most rounds for one decision before giving up (default 100)\n"
	"  --on TIME         what decides: cpu (the task clock, default where the\n"
	"                    kernel allows it; else user), user, real or sys; with\n"
	"                    --job, the location containing [TIME] by default\n"
	"  --job SPEC        measure with a collector job instead of timing COMMAND\n"
	"  --location KEY    --job: the location compared (equal to KEY, or the only\n"
	"                    one containing it)\n"
	"  --min-effect E    smallest relative slowdown of bad that counts (0.02)\n"
	"  --alpha A         significance level (default 0.05)\n"
	"  --seed N          the rounds' random order, for a repeatable bisect\n"
	"  --strict-env      refuse when a version is built with another compiler\n"
	"                    than good (otherwise a warning)\n"
	"  --no-interleave   measure good and bad once at the start and each\n"
	"                    candidate later against those numbers (the old way)\n"
	"  -q, --quiet       no progress lines on stderr\n"
	"\n"
	"Exit status: 0 when the first slow commit was found, 1 when the versions\n"
	"cannot be told apart (or bad is not slower than good), 2 on error.\n";

/* The versions after good up to bad on bad's first-parent line, oldest
 * first; ERR_INVALID when good is not on that line. */
static int first_parent_line(struct bisect *b, const char *good, const char *bad, char (**out)[41],
			     size_t *n)
{
	char(*v)[41] = NULL;
	char at[41];
	size_t len = 0;
	struct vcs_version ver;

	memcpy(at, bad, 41);
	while (strcmp(at, good) != 0) {
		if (vcs_version_info(b->ctx->vcs, at, &ver) < 0) {
			free(v);
			return -1;
		}
		v = xrealloc(v, (len + 1) * sizeof(*v));
		memcpy(v[len++], at, 41);
		if (ver.nparents == 0) {
			free(v);
			return err_set(ERR_INVALID,
				       "%.7s is not an ancestor of %.7s on its first-parent line",
				       good, bad);
		}
		memcpy(at, ver.parents[0], 41);
	}
	for (size_t i = 0; i < len / 2; i++) {
		char t[41];

		memcpy(t, v[i], 41);
		memcpy(v[i], v[len - 1 - i], 41);
		memcpy(v[len - 1 - i], t, 41);
	}
	*out = v;
	*n = len;
	return 0;
}

static void report(const struct bisect *b, const struct side *good, const struct side *first)
{
	struct vcs_version ver;
	double rel;
	size_t ng, nf;
	enum change_class c = bisect_judge(b, good, first, &rel, &ng, &nf);

	if (vcs_version_info(b->ctx->vcs, first->id, &ver) == 0)
		printf("%s is the first slow commit: %s\n", ver.id, ver.summary);
	if (b->job) {
		printf("  %s %+.1f%% against %.7s (%s, %zu and %zu values)\n", change_class_name(c),
		       100 * rel, good->id, bisect_job_location(b->job), ng, nf);
		return;
	}
	printf("  %s %+.1f%% against %.7s (%s time, %zu and %zu %s)\n", change_class_name(c),
	       100 * rel, good->id, bisect_on_name(b->on), ng, nf,
	       b->interleave ? "runs, interleaved" : "runs");
}

/* Binary search over @line (oldest first; its last is bad). */
static int search(struct bisect *b, struct side *good, struct side *bad, char (*line)[41], size_t n)
{
	size_t lo = 0, hi = n ? n - 1 : 0; /* the first slow one is in line[lo..hi] */
	struct side *cand;
	int ret = 0;

	if (n == 0)
		return err_set(ERR_INVALID, "no version after %.7s up to %.7s", good->id, bad->id);
	cand = xcalloc(n, sizeof(*cand));
	for (size_t i = 0; i < n; i++)
		memcpy(cand[i].id, line[i], 41);
	while (lo < hi && ret == 0) {
		size_t mid = lo + (hi - lo) / 2;
		int verdict = -1;

		bisect_progress(b, "%zu version%s left, measuring %.7s", hi - lo + 1,
				hi - lo ? "s" : "", cand[mid].id);
		ret = bisect_classify(b, good, bad, &cand[mid], &verdict);
		if (ret == 0 && verdict < 0) {
			printf("cannot tell whether %.7s is slow: after %lu rounds it is neither "
			       "like "
			       "%.7s nor like %.7s\n",
			       cand[mid].id, b->max_runs, good->id, bad->id);
			ret = 1;
		}
		/* Its worktree is not needed again: the search moves past it (its
		 * comparison with good, vs_good, stays for the report). */
		side_close(b, &cand[mid]);
		if (ret == 0 && verdict)
			hi = mid;
		else if (ret == 0)
			lo = mid + 1;
	}
	if (ret == 0 && strcmp(line[lo], bad->id) == 0) {
		report(b, good, bad);
	} else if (ret == 0) {
		/* Measured during the search without interleaving: once more for the report. */
		if (!b->interleave)
			ret = side_measure_block(b, &cand[lo], b->runs);
		if (ret == 0)
			report(b, good, &cand[lo]);
	}
	for (size_t i = 0; i < n; i++)
		side_close(b, &cand[i]);
	free(cand);
	return ret;
}

static int parse_on(struct bisect *b, const char *arg)
{
	static const char *const names[] = {"cpu", "user", "real", "sys"};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (strcmp(arg, names[i]) == 0) {
			b->on = (enum on_time)i;
			b->on_given = true;
			return 0;
		}
	}
	return cli_usage_error("bisect", "--on wants cpu, user, real or sys");
}

static int parse_number(struct bisect *b, int c, const char *arg)
{
	char *end;
	unsigned long n;
	double v;

	if (c == 'r' || c == 'M')
		return cli_parse_uint("bisect", c == 'r' ? "--runs" : "--max-runs", arg,
				      c == 'r' ? &b->runs : &b->max_runs) < 0
			       ? 2
			       : 0;
	if (c == 'S') {
		if (cli_parse_uint("bisect", "--seed", arg, &n) < 0)
			return 2;
		b->seed = n;
		return 0;
	}
	v = strtod(arg, &end);
	if (!(v > 0) || *end || (c == 'a' && v >= 0.5))
		return cli_usage_error("bisect", "--%s wants a small positive number",
				       c == 'e' ? "min-effect" : "alpha");
	*(c == 'e' ? &b->cp.min_effect : &b->cp.alpha) = v;
	return 0;
}

/* One option; 0 to go on, -1 after --help, else the exit status. */
static int parse_one(struct bisect *b, int c, char **argv)
{
	switch (c) {
	case 'g':
		b->good_rev = optarg;
		return 0;
	case 'b':
		b->bad_rev = optarg;
		return 0;
	case 'B':
		b->build = optarg;
		return 0;
	case 'o':
		return parse_on(b, optarg);
	case 'j':
		b->job_spec = optarg;
		return 0;
	case 'L':
		b->location = optarg;
		return 0;
	case 'q':
		b->quiet = true;
		return 0;
	case 'E':
		b->strict_env = true;
		return 0;
	case 'I':
		b->interleave = false;
		return 0;
	case 'h':
		fputs(bisect_usage, stdout);
		return -1;
	case 'r':
	case 'M':
	case 'e':
	case 'a':
	case 'S':
		return parse_number(b, c, optarg);
	default:
		return cli_bad_option("bisect", argv);
	}
}

static int parse_args(int argc, char **argv, struct bisect *b)
{
	static const struct option opts[] = {
		{"good", required_argument, NULL, 'g'},
		{"bad", required_argument, NULL, 'b'},
		{"build", required_argument, NULL, 'B'},
		{"runs", required_argument, NULL, 'r'},
		{"max-runs", required_argument, NULL, 'M'},
		{"on", required_argument, NULL, 'o'},
		{"min-effect", required_argument, NULL, 'e'},
		{"alpha", required_argument, NULL, 'a'},
		{"seed", required_argument, NULL, 'S'},
		{"job", required_argument, NULL, 'j'},
		{"location", required_argument, NULL, 'L'},
		{"strict-env", no_argument, NULL, 'E'},
		{"no-interleave", no_argument, NULL, 'I'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, ret;

	check_params_default(&b->cp);
	b->runs = 10;
	b->max_runs = 100;
	b->interleave = true;
	b->seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	while ((c = getopt_long(argc, argv, "+r:qh", opts, NULL)) != -1)
		if ((ret = parse_one(b, c, argv)) != 0)
			return ret;
	if (!b->good_rev || !b->bad_rev)
		return cli_usage_error("bisect", "name a --good and a --bad version");
	if (b->job_spec && optind < argc)
		return cli_usage_error("bisect", "--job names its own command; drop '%s'",
				       argv[optind]);
	if (b->location && !b->job_spec)
		return cli_usage_error("bisect", "--location is for --job");
	if (!b->job_spec && optind >= argc)
		return cli_usage_error("bisect", "name the command to measure after --, or --job");
	if (b->runs < 3 || b->max_runs < b->runs)
		return cli_usage_error("bisect",
				       "--runs wants at least 3, and --max-runs at least --runs");
	b->cmd = argv + optind;
	return 0;
}

/* execute.pre_run's commands as one shell command, or NULL. */
static char *config_build(struct cli_ctx *ctx)
{
	size_t n;
	char **cmds = cli_config_list(ctx, "execute.pre_run", &n);
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < n; i++) {
		buf_addf(&b, "%s(%s)", i ? " && " : "", cmds[i]);
		free(cmds[i]);
	}
	free(cmds);
	return n ? buf_detach(&b, NULL) : NULL;
}

/* Bracket, then search: 0 found, 1 cannot tell, or an error. */
static int bracket_and_search(struct bisect *b, struct side *good, struct side *bad,
			      char (*line)[41], size_t n)
{
	bool slower = false;
	int ret = side_open(b, good);

	if (ret == 0)
		ret = side_open(b, bad);
	if (ret == 0)
		ret = bisect_bracket(b, good, bad, &slower);
	if (ret == 0 && !slower)
		return 1;
	if (ret == 0)
		ret = search(b, good, bad, line, n);
	return ret;
}

/* After the options: resolve, bracket, search; returns the exit status. */
static int bisect_run(struct bisect *b)
{
	struct cli_ctx *ctx = b->ctx;
	struct side good = {0}, bad = {0};
	char(*line)[41] = NULL;
	size_t n = 0;
	int ret;

	if (vcs_kind(ctx->vcs) != VCS_GIT)
		return cli_error("bisect needs a git project: plain directories keep no old "
				 "sources") +
		       1;
	if (cli_resolve_version(ctx, b->good_rev, good.id) < 0 ||
	    cli_resolve_version(ctx, b->bad_rev, bad.id) < 0)
		return 2;
	/* No version lies after good up to bad: nothing to search. */
	if (strcmp(good.id, bad.id) == 0)
		return cli_usage_error("bisect", "--good and --bad are the same version %.7s",
				       good.id);
	memcpy(b->good_id, good.id, 41);
	b->build_from_config = config_build(ctx);
	b->home = xstrdup(ctx->root);
	ret = first_parent_line(b, good.id, bad.id, &line, &n);
	spawn_signals_install();
	if (ret == 0)
		ret = bracket_and_search(b, &good, &bad, line, n);
	spawn_signals_restore();
	side_close(b, &good);
	side_close(b, &bad);
	free(line);
	free(b->build_from_config);
	free(b->home);
	env_info_release(&b->good_env);
	if (ret < 0) {
		cli_fail();
		return 2;
	}
	return ret;
}

/* The location a --job compares by default: the one of the metric. */
static const char *job_fallback(enum on_time on)
{
	return on == ON_CPU    ? "[cpu]"
	       : on == ON_USER ? "[user]"
	       : on == ON_SYS  ? "[sys]"
			       : "[real]";
}

int cmd_bisect(struct cli_ctx *ctx, int argc, char **argv)
{
	struct bisect b = {.ctx = ctx};
	int ret = parse_args(argc, argv, &b);

	if (ret)
		return ret < 0 ? 0 : ret;
	perf_runcount_open(&b.rc);
	/* The exact CPU time where the kernel gives it; tick-sampled user time
	 * where not. */
	if (!b.on_given)
		b.on = b.rc.have[RC_CPU] ? ON_CPU : ON_USER;
	if (b.on == ON_CPU && !b.rc.have[RC_CPU])
		ret = cli_usage_error("bisect",
				      "--on cpu: perf_event_open refuses task-clock here");
	else if (b.job_spec &&
		 bisect_job_parse(b.job_spec, b.location, job_fallback(b.on), &b.job) < 0)
		ret = cli_usage_error("bisect", "%s", err_msg());
	else
		ret = bisect_run(&b);
	bisect_job_free(b.job);
	perf_runcount_close(&b.rc);
	return ret;
}
