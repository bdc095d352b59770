/*
 * veles bisect --good REV --bad REV [options] -- CMD [ARGS...]: finds the
 * first commit on the first-parent line from good to bad whose runs of CMD
 * are slower than good's, building and measuring each candidate in a
 * temporary worktree, with the `stat` test deciding each step and more
 * runs measured until it is sure or says it cannot tell.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vcs/git_lazy.h"

#include "analyze/degrade.h"
#include "analyze/hypo.h"
#include "analyze/stats.h"
#include "cli/bisect-job.h"
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
	"parents) that made COMMAND slower. Each version is checked out in a\n"
	"temporary worktree, built with --build (default: execute.pre_run from\n"
	"config.yml), and COMMAND is run there repeatedly. Bad must be slower than\n"
	"good by the `stat` test of `veles check`; a version is then like bad when the\n"
	"bootstrap interval of its slowdown against good lies wholly above the\n"
	"midpoint between good and bad, like good when it lies below, and when it\n"
	"straddles the midpoint more runs are measured, up to --max-runs. Your\n"
	"working tree is never touched. With --job, each measurement runs a\n"
	"collector job as `veles run job` does (`time -r 5 -- ./prog 100` collects\n"
	"like `veles collect time -r 5 -- ./prog 100`), and the values of one\n"
	"location of its profile are what is compared; -r and --max-runs then count\n"
	"those values.\n"
	"\n"
	"  --good REV        a version known to be fast\n"
	"  --bad REV         a later version known to be slow\n"
	"  --build CMD       shell command that builds a checkout (run in it)\n"
	"  -r, --runs N      runs per measurement (default 10)\n"
	"  --max-runs N      most runs for one version before giving up (default 40)\n"
	"  --on TIME         what decides: user (CPU time, default), real or sys;\n"
	"                    with --job, the location containing [TIME] by default\n"
	"  --job SPEC        measure with a collector job instead of timing COMMAND\n"
	"  --location KEY    --job: the location compared (equal to KEY, or the only\n"
	"                    one containing it)\n"
	"  --min-effect E    smallest relative slowdown that counts (default 0.02)\n"
	"  --alpha A         significance level (default 0.05)\n"
	"  -q, --quiet       no progress lines on stderr\n"
	"\n"
	"Exit status: 0 when the first slow commit was found, 1 when the versions\n"
	"cannot be told apart (or bad is not slower than good), 2 on error.\n";

enum on_time { ON_USER, ON_REAL, ON_SYS };

struct bisect {
	struct cli_ctx *ctx;
	const char *good_rev, *bad_rev, *build;
	const char *job_spec, *location;
	struct bisect_job *job; /* --job, or NULL: COMMAND is timed */
	char **cmd;
	unsigned long runs, max_runs;
	enum on_time on;
	struct check_params cp;
	bool quiet;
	char *build_from_config;
};

/* A version's measurements so far. */
struct sample {
	char id[41];
	double *v;
	size_t n;
};

static void progress(const struct bisect *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void progress(const struct bisect *b, const char *fmt, ...)
{
	va_list ap;

	if (b->quiet)
		return;
	fputs("bisect: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int build_in(const struct bisect *b)
{
	const char *cmd = b->build ? b->build : b->build_from_config;

	return cmd ? spawn_shell(cmd, "the build", SPAWN_SUPPRESS) : 0;
}

/* @n more runs of the command in the current directory, plus one warm-up
 * run the first time. */
static int run_command(const struct bisect *b, struct sample *s, size_t n)
{
	struct spawn_opts o = {.output = SPAWN_SUPPRESS};
	struct spawner sp;
	struct spawn_result r;
	char status[96];
	int ret = spawner_init(&sp, b->cmd, &o);

	if (ret < 0)
		return ret;
	s->v = xrealloc(s->v, (s->n + n) * sizeof(*s->v));
	/* i starts at -1 for the warm-up run, which is not kept. */
	for (size_t i = s->n ? 0 : (size_t)-1; ret == 0 && i != n; i++) {
		ret = spawner_run(&sp, &r);
		if (ret == 0 && spawn_interrupted())
			ret = err_set(ERR_INTERRUPTED, "interrupted");
		if (ret == 0 && (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0))
			ret = err_set(ERR_CHILD, "'%s' %s at %.7s", b->cmd[0],
				      spawn_status_str(r.status, status, sizeof(status)), s->id);
		if (ret == 0 && i != (size_t)-1)
			s->v[s->n++] = b->on == ON_USER ? r.user : b->on == ON_SYS ? r.sys : r.real;
	}
	spawner_release(&sp);
	return ret;
}

/* Checks out @s->id, builds it and measures @n more runs. */
static int measure(struct bisect *b, struct sample *s, size_t n)
{
	git_repository *repo = vcs_store_repo(b->ctx->vcs);
	char *dir, *name;
	int ret = run_worktree_add(repo, s->id, &dir, &name);

	if (ret < 0)
		return ret;
	if (chdir(dir) < 0)
		ret = err_set(ERR_IO, "cannot change to %s: %s", dir, strerror(errno));
	if (ret == 0)
		ret = build_in(b);
	if (ret == 0 && b->job)
		ret = bisect_job_measure(b->job, b->ctx->logs_dir, s->id, n, &s->v, &s->n);
	else if (ret == 0)
		ret = run_command(b, s, n);
	if (chdir(b->ctx->root) < 0 && ret == 0)
		ret = err_set(ERR_IO, "cannot change back to %s: %s", b->ctx->root,
			      strerror(errno));
	{
		int rm = run_worktree_remove(repo, dir, name);

		if (ret == 0)
			ret = rm;
	}
	free(dir);
	free(name);
	return ret;
}

/* The stat test's verdict of @target against @base. */
static enum change_class judge(const struct bisect *b, const struct sample *base,
			       const struct sample *target, double *rel)
{
	double lo, hi, u, ratio, p;
	double mb, mt, *tmp = xcalloc(base->n + target->n, sizeof(*tmp));

	memcpy(tmp, base->v, base->n * sizeof(*tmp));
	mb = stats_median_sort(tmp, base->n);
	memcpy(tmp, target->v, target->n * sizeof(*tmp));
	mt = stats_median_sort(tmp, target->n);
	free(tmp);
	*rel = mb > 0 ? mt / mb - 1 : 0;
	if (!(mb > 0))
		return CH_UNKNOWN;
	p = hypo_mann_whitney(base->v, base->n, target->v, target->n, &u);
	hypo_bootstrap_median_ratio(base->v, base->n, target->v, target->n, b->cp.bootstrap_rounds,
				    b->cp.alpha, b->cp.seed, &lo, &hi);
	ratio = mt / mb;
	return degrade_classify_stat(ratio, lo, hi, p, &b->cp);
}

static bool sure_slower(enum change_class c)
{
	return change_is_degradation(c) && c != CH_MAYBE_DEGRADATION;
}

static double median_of(const struct sample *s)
{
	double *tmp = xcalloc(s->n, sizeof(*tmp)), m;

	memcpy(tmp, s->v, s->n * sizeof(*tmp));
	m = stats_median_sort(tmp, s->n);
	free(tmp);
	return m;
}

/*
 * Is @s like good (0) or like bad (1)? Judged against the geometric
 * midpoint between good's and bad's medians: like bad when the whole
 * interval of its ratio to good lies above the midpoint, like good when it
 * lies below, so noise much smaller than the slowdown never decides. Runs
 * more while the interval straddles the midpoint; -1 when --max-runs is
 * reached without an answer.
 */
static int classify(struct bisect *b, const struct sample *good, const struct sample *bad,
		    struct sample *s, int *verdict)
{
	double mg = median_of(good), mid = sqrt(median_of(bad) / mg);
	int ret = measure(b, s, b->runs);

	while (ret == 0) {
		double lo, hi;

		hypo_bootstrap_median_ratio(good->v, good->n, s->v, s->n, b->cp.bootstrap_rounds,
					    b->cp.alpha, b->cp.seed, &lo, &hi);
		if (lo > mid || hi < mid) {
			*verdict = lo > mid;
			return 0;
		}
		if (s->n >= b->max_runs) {
			*verdict = -1;
			return 0;
		}
		progress(
			b,
			"%.7s: %+.1f%% .. %+.1f%% against good, the midpoint is %+.1f%%: measuring "
			"more",
			s->id, 100 * (lo - 1), 100 * (hi - 1), 100 * (mid - 1));
		ret = measure(b, s, b->runs);
	}
	return ret;
}

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

static void report(const struct bisect *b, const struct sample *good, const struct sample *first)
{
	struct vcs_version ver;
	double rel;
	enum change_class c = judge(b, good, first, &rel);

	if (vcs_version_info(b->ctx->vcs, first->id, &ver) == 0)
		printf("%s is the first slow commit: %s\n", ver.id, ver.summary);
	if (b->job) {
		printf("  %s %+.1f%% against %.7s (%s, %zu and %zu values)\n", change_class_name(c),
		       100 * rel, good->id, bisect_job_location(b->job), good->n, first->n);
		return;
	}
	printf("  %s %+.1f%% against %.7s (%s time, %zu and %zu runs)\n", change_class_name(c),
	       100 * rel, good->id,
	       b->on == ON_USER	 ? "user"
	       : b->on == ON_SYS ? "sys"
				 : "real",
	       good->n, first->n);
}

static void sample_free(struct sample *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* Binary search over @line (oldest first; its last is bad). */
static int search(struct bisect *b, struct sample *good, struct sample *bad, char (*line)[41],
		  size_t n)
{
	size_t lo = 0, hi = n ? n - 1 : 0; /* the first slow one is in line[lo..hi] */
	struct sample cur = {0};
	int ret = 0;

	if (n == 0)
		return err_set(ERR_INVALID, "no version after %.7s up to %.7s", good->id, bad->id);

	while (lo < hi && ret == 0) {
		size_t mid = lo + (hi - lo) / 2;
		int verdict = -1;

		sample_free(&cur);
		memcpy(cur.id, line[mid], 41);
		progress(b, "%zu version%s left, measuring %.7s", hi - lo + 1, hi - lo ? "s" : "",
			 cur.id);
		ret = classify(b, good, bad, &cur, &verdict);
		if (ret < 0)
			break;
		if (verdict < 0) {
			printf("cannot tell whether %.7s is slow: after %zu runs it is neither "
			       "like %.7s "
			       "nor like %.7s\n",
			       cur.id, cur.n, good->id, bad->id);
			sample_free(&cur);
			return 1;
		}
		if (verdict)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (ret == 0) {
		if (strcmp(line[lo], bad->id) == 0)
			report(b, good, bad);
		else {
			/* Measured during the search: measure it once more for the report. */
			sample_free(&cur);
			memcpy(cur.id, line[lo], 41);
			ret = measure(b, &cur, b->runs);
			if (ret == 0)
				report(b, good, &cur);
		}
	}
	sample_free(&cur);
	return ret;
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
		{"job", required_argument, NULL, 'j'},
		{"location", required_argument, NULL, 'L'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	char *end;

	check_params_default(&b->cp);
	b->runs = 10;
	b->max_runs = 40;
	while ((c = getopt_long(argc, argv, "+r:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'g':
			b->good_rev = optarg;
			break;
		case 'b':
			b->bad_rev = optarg;
			break;
		case 'B':
			b->build = optarg;
			break;
		case 'r':
		case 'M':
			if (cli_parse_uint("bisect", c == 'r' ? "--runs" : "--max-runs", optarg,
					   c == 'r' ? &b->runs : &b->max_runs) < 0)
				return 2;
			break;
		case 'o':
			if (strcmp(optarg, "user") && strcmp(optarg, "real") &&
			    strcmp(optarg, "sys"))
				return cli_usage_error("bisect", "--on wants user, real or sys");
			b->on = optarg[0] == 'u' ? ON_USER : optarg[0] == 'r' ? ON_REAL : ON_SYS;
			break;
		case 'e':
		case 'a':
			if ((c == 'e' ? (b->cp.min_effect = strtod(optarg, &end))
				      : (b->cp.alpha = strtod(optarg, &end))) <= 0 ||
			    *end || b->cp.alpha >= 0.5)
				return cli_usage_error("bisect",
						       "--%s wants a small positive number",
						       c == 'e' ? "min-effect" : "alpha");
			break;
		case 'j':
			b->job_spec = optarg;
			break;
		case 'L':
			b->location = optarg;
			break;
		case 'q':
			b->quiet = true;
			break;
		case 'h':
			fputs(bisect_usage, stdout);
			return -1;
		default:
			return cli_bad_option("bisect", argv);
		}
	}
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

/* Measures good and bad and checks that bad is in fact slower. */
static int bracket(struct bisect *b, struct sample *good, struct sample *bad)
{
	double rel;
	int ret;

	progress(b, "measuring good %.7s and bad %.7s", good->id, bad->id);
	ret = measure(b, good, b->runs);
	if (ret == 0)
		ret = measure(b, bad, b->runs);
	while (ret == 0) {
		enum change_class c = judge(b, good, bad, &rel);

		if (sure_slower(c))
			return 0;
		if (bad->n >= b->max_runs) {
			printf("%.7s is not slower than %.7s (%s, %+.1f%% after %zu runs): nothing "
			       "to "
			       "bisect\n",
			       bad->id, good->id, change_class_name(c), 100 * rel, bad->n);
			return 1;
		}
		ret = measure(b, good, b->runs);
		if (ret == 0)
			ret = measure(b, bad, b->runs);
	}
	return ret;
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

/* After the options: resolve, bracket, search; returns the exit status. */
static int bisect_run(struct bisect *b)
{
	struct cli_ctx *ctx = b->ctx;
	struct sample good = {0}, bad = {0};
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
	b->build_from_config = config_build(ctx);
	ret = first_parent_line(b, good.id, bad.id, &line, &n);
	spawn_signals_install();
	if (ret == 0)
		ret = bracket(b, &good, &bad);
	if (ret == 0)
		ret = search(b, &good, &bad, line, n);
	spawn_signals_restore();
	free(line);
	free(b->build_from_config);
	sample_free(&good);
	sample_free(&bad);
	if (ret < 0) {
		cli_fail();
		return 2;
	}
	return ret;
}

int cmd_bisect(struct cli_ctx *ctx, int argc, char **argv)
{
	struct bisect b = {.ctx = ctx};
	int ret = parse_args(argc, argv, &b);

	if (ret)
		return ret < 0 ? 0 : ret;
	if (b.job_spec && bisect_job_parse(b.job_spec, b.location,
					   b.on == ON_USER  ? "[user]"
					   : b.on == ON_SYS ? "[sys]"
							    : "[real]",
					   &b.job) < 0)
		return cli_usage_error("bisect", "%s", err_msg());
	ret = bisect_run(&b);
	bisect_job_free(b.job);
	return ret;
}
