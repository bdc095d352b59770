/*
 * veles collect time: runs a command warm-up + repeat times and records,
 * for each measured run, its wall ("real"), user and system time as the
 * seed's time profile does, plus the run's peak RSS and exit status as
 * extra fields of its "real" resource (docs/collect-time.md). Where the
 * kernel allows, each run's CPU time from the per-task clock ("cpu") and
 * its instructions and cycles are recorded too (runcount.h); with
 * --metric instructions and no PMU, cachegrind counts the instructions.
 *
 * The measuring loop only spawns and stores into an array allocated up
 * front: the profile is built and the statistics computed after the last
 * run, so Veles adds nothing per run that a bare posix_spawn + wait4 loop
 * does not (bench/collect_time.sh checks that).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "analyze/stats.h"
#include "collect/collector.h"
#include "collect/time/cachegrind.h"
#include "collect/time/time.h"
#include "perf/runcount.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/human.h"
#include "util/optparse.h"
#include "util/spawn.h"

/* Progress appears once a collection has run this long, redrawn this often. */
#define PROGRESS_AFTER 1.0
#define PROGRESS_EVERY 0.1

struct time_state {
	long repeat;
	long warmup;
	const char *metric; /* --metric, or NULL */
	struct spawner sp;
	bool sp_ready;
	struct perf_runcount tc;
	bool tc_open;
	struct cachegrind cg; /* --metric instructions without a PMU */
	bool use_cg;
	struct spawn_result *runs; /* repeat of them, filled in order */
	double (*cnt)[RC_N];	   /* each run's counters, NaN when not counted */
	long done;
	double first_start; /* of the first run, warm-up included */
	double last_draw;   /* when the progress line was drawn, 0 = never */
	bool drawn;	    /* a progress line is on the screen */
};

static const char *const metrics[] = {"real", "user", "sys", "cpu", "instructions", "cycles"};

static int parse_metric(struct time_state *st, const char *arg)
{
	for (size_t i = 0; i < ARRAY_SIZE(metrics); i++) {
		if (strcmp(arg, metrics[i]) == 0) {
			st->metric = metrics[i];
			return 0;
		}
	}
	return err_set(ERR_INVALID,
		       "collect time: --metric is real, user, sys, cpu, instructions or cycles, "
		       "not '%s'",
		       arg);
}

static int metric_opt(void *ctx, const struct opt *o, const char *arg)
{
	UNUSED(o);
	return parse_metric(ctx, arg);
}

static int time_parse(struct collect_ctx *c, int argc, char **argv)
{
	struct time_state *st = xcalloc(1, sizeof(*st));
	const struct opt opts[] = {
		OPT_LONG('w', "warmup", &st->warmup, "N", 0,
			 "runs before measuring, not recorded (default " STR(
				 TIME_DEFAULT_WARMUP) ")"),
		OPT_LONG('r', "repeat", &st->repeat, "N", 1,
			 "measured runs (default " STR(TIME_DEFAULT_REPEAT) ")"),
		OPT_CALLBACK(0, "metric", "M", metric_opt,
			     "fail unless M is measured: real, user, sys, cpu,\n"
			     "instructions or cycles; instructions without a PMU are\n"
			     "counted by valgrind's cachegrind (exact, slower: then\n"
			     "only the instructions are recorded)"),
		OPT_END(),
	};
	const struct collect_options o = {
		.usage = "veles collect time [-w N] [-r N] [OPTIONS] -- COMMAND [ARGS...]",
		.about = "Runs COMMAND (directly, no shell) N times after the warm-up runs and "
			 "records\n"
			 "each run's wall-clock (real), user and system time in seconds, its peak\n"
			 "resident set size and its exit status. Prints a summary like "
			 "hyperfine's.\n"
			 "\n"
			 "Where the kernel allows, each run's CPU time from the per-task clock\n"
			 "(cpu, exact to the ns) is recorded too, and its instructions and cycles\n"
			 "where the PMU counts them.",
		.opts = opts,
		.ctx = st,
	};
	int ret;

	st->repeat = TIME_DEFAULT_REPEAT;
	st->warmup = TIME_DEFAULT_WARMUP;
	c->state = st;
	ret = collect_parse_options(c, "time", &o, argc, argv);
	if (ret < 0 || c->help)
		return ret;
	if (st->repeat > TIME_MAX_RUNS || st->warmup > TIME_MAX_RUNS)
		return err_set(ERR_INVALID, "collect time: at most %d runs", TIME_MAX_RUNS);
	return 0;
}

/* --metric M when the kernel gives no M: cachegrind for instructions, else
 * an error (a gate on cycles must not pass on real time). */
static int metric_fallback(struct collect_ctx *c, struct time_state *st)
{
	int k = !st->metric				  ? -1
		: strcmp(st->metric, "cpu") == 0	  ? RC_CPU
		: strcmp(st->metric, "instructions") == 0 ? RC_INSTRUCTIONS
		: strcmp(st->metric, "cycles") == 0	  ? RC_CYCLES
							  : -1;
	int ret;

	if (k < 0 || st->tc.have[k])
		return 0;
	if (k != RC_INSTRUCTIONS)
		return err_set(ERR_INVALID,
			       "collect time: %s cannot be measured here (perf_event_open refuses "
			       "%s)",
			       st->metric, k == RC_CPU ? "task-clock" : "cycles:u: no PMU");
	ret = cachegrind_prepare(&st->cg, c->argv);
	if (ret < 0)
		return ret;
	st->use_cg = true;
	perf_runcount_close(&st->tc);
	st->tc_open = false;
	collect_say(c, COLLECT_MSG_ERR,
		    "collect time: no PMU counts instructions here: counting them with "
		    "valgrind's cachegrind (exact; runs are slower, so only instructions are "
		    "recorded)");
	return 0;
}

/* Resolving the command here makes "cannot run" fail before any run. */
static int time_before(struct collect_ctx *c)
{
	struct time_state *st = c->state;
	struct spawn_opts o;
	int ret;

	collect_spawn_opts(c, &o);
	ret = spawner_init(&st->sp, c->argv, &o);
	st->sp_ready = true;
	if (ret < 0)
		return ret;
	/* Opened before any run, so every run's process inherits them. */
	perf_runcount_open(&st->tc);
	st->tc_open = true;
	ret = metric_fallback(c, st);
	if (ret == 0 && st->use_cg) {
		spawner_release(&st->sp);
		ret = spawner_init(&st->sp, st->cg.argv, &o);
	}
	if (ret < 0)
		return ret;
	st->runs = xcalloc((size_t)st->repeat, sizeof(*st->runs));
	st->cnt = xcalloc((size_t)st->repeat, sizeof(*st->cnt));
	return 0;
}

/* ---- progress ---- */

static void progress_clear(struct collect_ctx *c, struct time_state *st)
{
	if (st->drawn)
		collect_say(c, COLLECT_MSG_PROGRESS, "%s", "");
	st->drawn = false;
}

/* After a run that ended at @now: "Collecting 4/10 ..." once it is slow. */
static void progress_draw(struct collect_ctx *c, struct time_state *st, long i, bool warm,
			  double now)
{
	if (!c->env->progress || c->quiet || now - st->first_start < PROGRESS_AFTER ||
	    now - st->last_draw < PROGRESS_EVERY)
		return;
	collect_say(c, COLLECT_MSG_PROGRESS, "%s %ld/%ld ...", warm ? "Warming up" : "Collecting",
		    i + 1, warm ? st->warmup : st->repeat);
	st->last_draw = now;
	st->drawn = true;
}

/* ---- the runs ---- */

static int time_run(struct collect_ctx *c, struct time_state *st, long i, bool warm,
		    struct spawn_result *r)
{
	double scratch[RC_N], *cnt = warm ? scratch : st->cnt[i];
	char status[96];
	int ret;

	/* The command's own output starts on a clean line. */
	if (st->drawn && c->output != OUTPUT_SUPPRESS)
		progress_clear(c, st);
	if (st->tc_open)
		perf_runcount_begin(&st->tc);
	ret = spawner_run(&st->sp, r);
	if (ret < 0)
		return ret;
	for (int k = 0; k < RC_N; k++)
		cnt[k] = NAN;
	if (st->tc_open)
		perf_runcount_end(&st->tc, cnt);
	if (st->use_cg && !r->timed_out)
		ret = cachegrind_count(&st->cg, &cnt[RC_INSTRUCTIONS]);
	if (ret < 0)
		return ret;
	if (i == 0 && (warm || st->warmup == 0))
		st->first_start = r->start;
	c->last_status = r->status;
	if (r->timed_out) {
		progress_clear(c, st);
		return err_set(ERR_CHILD,
			       "collect time: '%s' timed out after %g s in %s run %ld of %ld (%s): "
			       "no profile written",
			       c->argv[0], c->timeout, warm ? "warm-up" : "measured", i + 1,
			       warm ? st->warmup : st->repeat,
			       spawn_status_str(r->status, status, sizeof(status)));
	}
	progress_draw(c, st, i, warm, r->start + r->real);
	return 0;
}

static void time_build(struct collect_ctx *c, struct time_state *st);

static int time_collect(struct collect_ctx *c)
{
	struct time_state *st = c->state;
	struct spawn_result warm;
	int ret = 0;

	for (long i = 0; i < st->warmup && ret == 0 && !spawn_interrupted(); i++)
		ret = time_run(c, st, i, true, &warm);
	for (long i = 0; i < st->repeat && ret == 0 && !spawn_interrupted(); i++) {
		ret = time_run(c, st, i, false, &st->runs[i]);
		if (ret == 0)
			st->done = i + 1;
	}
	progress_clear(c, st);
	if (ret == 0 && !spawn_interrupted())
		time_build(c, st);
	return ret;
}

/* ---- the profile ---- */

static double run_value(const struct time_state *st, long i, size_t k)
{
	const struct spawn_result *r = &st->runs[i];

	return k == 0 ? r->real : k == 1 ? r->user : k == 2 ? r->sys : st->cnt[i][k - 3];
}

/* Which metrics the profile holds: every run's, in the order of metrics[];
 * under cachegrind only the instructions (valgrind's times are not the
 * program's). */
static size_t time_metrics(const struct time_state *st, const char *names[ARRAY_SIZE(metrics)],
			   size_t which[ARRAY_SIZE(metrics)])
{
	size_t n = 0;

	for (size_t k = 0; k < ARRAY_SIZE(metrics); k++) {
		bool have = k < 3 ? !st->use_cg : st->done > 0;

		for (long i = 0; have && k >= 3 && i < st->done; i++)
			have = !isnan(st->cnt[i][k - 3]);
		if (have) {
			names[n] = metrics[k];
			which[n++] = k;
		}
	}
	return n;
}

static void time_units(struct profile *p, bool counts)
{
	p->nunits = counts ? 2 : 1;
	p->units = xcalloc(p->nunits, sizeof(*p->units));
	p->units[0] = (struct kv){xstrdup("time"), xstrdup("s")};
	if (counts)
		p->units[1] = (struct kv){xstrdup("count"), xstrdup("events")};
}

static void time_build(struct collect_ctx *c, struct time_state *st)
{
	static const char *const cols[] = {"amount", "order", "max-rss", "exit-status", "signal"};
	struct profile *p = profile_new();
	struct column *col[ARRAY_SIZE(cols)];
	const char *names[ARRAY_SIZE(metrics)];
	size_t which[ARRAY_SIZE(metrics)], n = time_metrics(st, names, which);
	uint32_t type[ARRAY_SIZE(metrics)];
	const struct spawn_result *last = &st->runs[st->done - 1];

	p->layout = LAYOUT_GLOBAL;
	p->type = xstrdup("time");
	time_units(p, which[n - 1] >= 4);
	p->collector_params =
		st->metric ? xasprintf("{\"repeat\":%ld,\"warmup\":%ld,\"metric\":\"%s\"}",
				       st->repeat, st->warmup, st->metric)
			   : xasprintf("{\"repeat\":%ld,\"warmup\":%ld}", st->repeat, st->warmup);
	/* As in the seed: the time the measured runs took, warm-up excluded. */
	p->has_timestamp = true;
	p->timestamp = last->start + last->real - st->runs[0].start;
	for (size_t k = 0; k < n; k++) {
		struct attr a[] = {
			{.name = "uid", .kind = COL_STR, .s = c->argv[0]},
			{.name = "type", .kind = COL_STR, .s = which[k] >= 4 ? "count" : "time"},
			{.name = "subtype", .kind = COL_STR, .s = names[k]},
		};
		type[k] = profile_type_add(p, a, ARRAY_SIZE(a));
	}
	/* Create every column before taking pointers: adding one may move them. */
	for (size_t k = 0; k < ARRAY_SIZE(cols); k++)
		table_col_get(p, &p->res, cols[k], k == 0 ? COL_F64 : COL_I64);
	for (size_t k = 0; k < ARRAY_SIZE(cols); k++)
		col[k] = table_col_get(p, &p->res, cols[k], k == 0 ? COL_F64 : COL_I64);
	for (long i = 0; i < st->done; i++) {
		const struct spawn_result *r = &st->runs[i];

		for (size_t k = 0; k < n; k++) {
			size_t row = profile_res_add(p, type[k]);

			col_set_f64(&p->res, col[0], row, run_value(st, i, which[k]));
			col_set_i64(&p->res, col[1], row, i + 1);
			/* The run's own fields, on its first resource ("real"). */
			if (k != 0)
				continue;
			col_set_i64(&p->res, col[2], row, (int64_t)r->maxrss_kib * 1024);
			if (WIFEXITED(r->status))
				col_set_i64(&p->res, col[3], row, WEXITSTATUS(r->status));
			else if (WIFSIGNALED(r->status))
				col_set_i64(&p->res, col[4], row, WTERMSIG(r->status));
		}
	}
	c->profile = p;
}

/* ---- the summary ---- */

/* "12.3 ms": @seconds in µs, ms or s, whichever @ref (the mean) reads best in. */
static const char *time_format(double seconds, double ref, char *out, size_t len)
{
	return human_num(out, len, seconds, ref, HUMAN_SECONDS, 1);
}

/* @seconds in @ref's unit, right-aligned to @width columns ("µs" is one
 * column per character, not per byte). */
static const char *time_cell(double seconds, double ref, int width, char *out, size_t len)
{
	char text[32];
	int cols = 0;

	time_format(seconds, ref, text, sizeof(text));
	for (const char *t = text; *t; t++)
		cols += ((unsigned char)*t & 0xc0) != 0x80;
	snprintf(out, len, "%*s%s", cols < width ? width - cols : 0, "", text);
	return out;
}

/*
 * A spawned child shares our address space until it execs, and the kernel
 * carries that space's high-water mark into the child's ru_maxrss. So a
 * command whose peak is at or below ours reports ours: we print it as an
 * upper bound ("≤").
 */
static long self_maxrss_kib(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : 0;
}

/* The exact metrics' means: "CPU (task-clock): 12.1 ms ± 0.2 ms". */
static void counters_summary(const struct time_state *st, double ref, struct buf *out)
{
	static const char *const label[RC_N] = {"CPU (task-clock):", "Instructions:", "Cycles:"};
	double *v = xmalloc((size_t)st->done * sizeof(*v));
	char a[48], b[48];

	for (int k = 0; k < RC_N; k++) {
		struct stats s;

		for (long i = 0; i < st->done; i++)
			v[i] = st->cnt[i][k];
		if (!st->done || isnan(v[0]))
			continue;
		stats_compute(v, (size_t)st->done, &s);
		if (k == RC_CPU)
			buf_addf(out, "  %-20s %s ± %s\n", label[k],
				 time_format(s.mean, ref, a, sizeof(a)),
				 time_format(s.stddev, ref, b, sizeof(b)));
		else
			buf_addf(out, "  %-20s %.0f ± %.0f%s\n", label[k], s.mean, s.stddev,
				 st->use_cg ? " (cachegrind)" : "");
	}
	free(v);
}

static void time_summary(struct collect_ctx *c, struct time_state *st, const struct stats *real)
{
	double *v = xmalloc((size_t)st->done * sizeof(*v));
	double user, sys, m = real->mean;
	long maxrss = 0;
	char a[48], b[48];
	struct buf out = BUF_INIT;

	for (long i = 0; i < st->done; i++)
		v[i] = st->runs[i].user;
	user = stats_mean(v, (size_t)st->done);
	for (long i = 0; i < st->done; i++) {
		v[i] = st->runs[i].sys;
		if (st->runs[i].maxrss_kib > maxrss)
			maxrss = st->runs[i].maxrss_kib;
	}
	sys = stats_mean(v, (size_t)st->done);
	free(v);
	buf_adds(&out, "Benchmark:");
	for (int i = 0; i < c->argc; i++)
		buf_addf(&out,
			 c->argv[i][strcspn(c->argv[i], " \t'\"\\$`|&;<>()*?")] ? " '%s'" : " %s",
			 c->argv[i]);
	/* hyperfine's layout, so its users read it at a glance. */
	buf_addf(&out, "\n  Time (mean ± σ):     %s ± %s", time_cell(m, m, 8, a, sizeof(a)),
		 time_cell(real->stddev, m, 8, b, sizeof(b)));
	buf_addf(&out, "    [User: %s, System: %s]\n", time_format(user, m, a, sizeof(a)),
		 time_format(sys, m, b, sizeof(b)));
	buf_addf(&out, "  Range (min … max):   %s … %s", time_cell(real->min, m, 8, a, sizeof(a)),
		 time_cell(real->max, m, 8, b, sizeof(b)));
	buf_addf(&out, "    %zu run%s\n", real->n, real->n == 1 ? "" : "s");
	buf_addf(&out, "  Median: %s   Peak RSS: %s%s\n",
		 time_format(real->median, m, a, sizeof(a)),
		 maxrss <= self_maxrss_kib() ? "≤ " : "",
		 human_num(b, sizeof(b), (double)maxrss * 1024, (double)maxrss * 1024, HUMAN_BYTES,
			   1));
	counters_summary(st, m, &out);
	collect_say(c, COLLECT_MSG_OUT, "%s", buf_str(&out));
	buf_release(&out);
}

/* "command exited with status 3 in 2 of 10 runs", when any run failed. */
static void time_warn_status(struct collect_ctx *c, struct time_state *st)
{
	long failed = 0, same = 0;
	int first = 0;
	char what[96];

	for (long i = 0; i < st->done; i++) {
		int s = st->runs[i].status;

		if (WIFEXITED(s) && WEXITSTATUS(s) == 0)
			continue;
		if (!failed++)
			first = s;
		same += s == first;
	}
	if (!failed)
		return;
	spawn_status_str(first, what, sizeof(what));
	if (same == failed)
		collect_say(c, COLLECT_MSG_ERR, "Warning: command %s in %ld of %ld runs", what,
			    failed, st->done);
	else
		collect_say(c, COLLECT_MSG_ERR,
			    "Warning: command failed in %ld of %ld runs (the first %s)", failed,
			    st->done, what);
}

static int time_after(struct collect_ctx *c)
{
	struct time_state *st = c->state;
	double *real = xmalloc((size_t)st->done * sizeof(*real));
	struct stats s;

	for (long i = 0; i < st->done; i++)
		real[i] = st->runs[i].real;
	stats_compute(real, (size_t)st->done, &s);
	free(real);
	if (!c->quiet)
		time_summary(c, st, &s);
	/* A failing command is measured all the same, but the user must know. */
	time_warn_status(c, st);
	if (!c->quiet && s.noutliers)
		collect_say(
			c, COLLECT_MSG_ERR,
			"Warning: Statistical outliers were detected (%zu of %zu runs). Consider "
			"re-running on a quiet system, or with more --warmup runs.",
			s.noutliers, s.n);
	return 0;
}

static void time_release(struct collect_ctx *c)
{
	struct time_state *st = c->state;

	if (!st)
		return;
	if (st->sp_ready)
		spawner_release(&st->sp);
	if (st->tc_open)
		perf_runcount_close(&st->tc);
	cachegrind_release(&st->cg);
	free(st->runs);
	free(st->cnt);
	free(st);
	c->state = NULL;
}

const struct collector time_collector = {
	.name = "time",
	.summary = "wall, user and system time of a command, run N times",
	.parse = time_parse,
	.before = time_before,
	.collect = time_collect,
	.after = time_after,
	.release = time_release,
};
