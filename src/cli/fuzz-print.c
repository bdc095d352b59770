/* `veles fuzz`: the progress line and the report, as text or JSON. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/fuzz-print.h"
#include "util/buf.h"
#include "util/common.h"

/* Without a terminal, a progress line a minute. */
#define LINE_EVERY 60.0

void fuzz_cost_str(enum fz_metric m, double cost, char *out, size_t len)
{
	if (fz_metric_is_count(m)) {
		const char *unit = m == FZ_METRIC_HITS ? "edge hits" : "instructions";

		if (cost >= 1e9)
			snprintf(out, len, "%.3gG %s", cost / 1e9, unit);
		else if (cost >= 1e6)
			snprintf(out, len, "%.3gM %s", cost / 1e6, unit);
		else if (cost >= 1e4)
			snprintf(out, len, "%.3gk %s", cost / 1e3, unit);
		else
			snprintf(out, len, "%.0f %s", cost, unit);
	} else if (cost >= 1) {
		snprintf(out, len, "%.3f s", cost);
	} else if (cost >= 1e-3) {
		snprintf(out, len, "%.3f ms", cost * 1e3);
	} else {
		snprintf(out, len, "%.1f us", cost * 1e6);
	}
}

static const char *metric_text(enum fz_metric m)
{
	switch (m) {
	case FZ_METRIC_INSTRUCTIONS:
		return "instructions:u (perf_event_open, user space)";
	case FZ_METRIC_TASK_CLOCK:
		return "task-clock (the program's CPU time as the kernel accounts it, not sampled)";
	case FZ_METRIC_RUSAGE:
		return "rusage (user + system CPU time from wait4, tick-sampled)";
	case FZ_METRIC_HITS:
		return "hits (edges passed, counted by the instrumented build)";
	default:
		return "?";
	}
}

static void head_line(const struct fz_progress *p)
{
	char base[64];

	fuzz_cost_str(p->metric, p->base_cost, base, sizeof(base));
	fprintf(stderr, "veles fuzz: metric %s%s%s\n", metric_text(p->metric),
		p->metric_why ? "; " : "", p->metric_why ? p->metric_why : "");
	fprintf(stderr,
		"veles fuzz: seed %" PRIu64 ", %s, costliest seed %s, timeout %.3g s, inputs up "
		"to %zu bytes%s\n",
		p->seed, p->coverage ? "edge coverage on" : "no edge coverage", base, p->timeout,
		p->max_size, p->resumed ? ", resumed" : "");
}

static void progress_text(struct buf *b, const struct fz_progress *p)
{
	int secs = (int)p->elapsed;

	buf_addf(b,
		 "%s: %" PRIu64 " runs (%.0f/s), corpus %zu, worst %.1fx, crashes %" PRIu64
		 ", hangs %" PRIu64 ", %d:%02d",
		 p->phase, p->session_runs, p->rate, p->corpus, p->worst_ratio, p->crashes,
		 p->hangs, secs / 60, secs % 60);
}

void fuzz_progress(const struct fz_progress *p, void *arg)
{
	struct fuzz_view *v = arg;
	struct buf b = BUF_INIT;
	bool fuzzing = strcmp(p->phase, "fuzzing") == 0;

	if (v->quiet)
		return;
	if (fuzzing && !v->said_head) {
		fuzz_progress_end(v);
		head_line(p);
		v->said_head = true;
	}
	if (!v->tty) {
		/* One line a minute, and none for the short phases. */
		if (!fuzzing || p->elapsed - v->last_line < LINE_EVERY)
			return;
		v->last_line = p->elapsed;
	}
	progress_text(&b, p);
	if (v->tty)
		fprintf(stderr, "\r\033[K%s", b.data);
	else
		fprintf(stderr, "veles fuzz: %s\n", b.data);
	fflush(stderr);
	v->drawn = v->tty;
	buf_release(&b);
}

void fuzz_progress_end(struct fuzz_view *v)
{
	if (v->drawn)
		fprintf(stderr, "\r\033[K");
	v->drawn = false;
}

/* ---- the report ---- */

/* @path relative to the current directory when it lies below it. */
static const char *shown(const char *path)
{
	static char cwd[4096];
	size_t n;

	if (!path || path[0] != '/' || (!cwd[0] && !getcwd(cwd, sizeof(cwd))))
		return path;
	n = strlen(cwd);
	return strncmp(path, cwd, n) == 0 && path[n] == '/' ? path + n + 1 : path;
}

void fuzz_print_text(FILE *f, const struct fz_report *r, const char *profile_path)
{
	char cost[64];

	fprintf(f, "runs      %" PRIu64 " in %.1f s (%.0f/s)", r->session_runs, r->session_elapsed,
		r->session_elapsed > 0 ? (double)r->session_runs / r->session_elapsed : 0);
	if (r->resumed)
		fprintf(f, "; %" PRIu64 " in %.1f s in all", r->runs, r->elapsed);
	fprintf(f, "%s\n", r->interrupted ? " (interrupted)" : "");
	fprintf(f, "metric    %s%s%s\n", metric_text(r->metric), r->metric_why ? "; " : "",
		r->metric_why ? r->metric_why : "");
	fuzz_cost_str(r->metric, r->base_cost, cost, sizeof(cost));
	fprintf(f, "seeds     %zu, the costliest %s", r->nseeds, cost);
	if (r->dropped_seeds)
		fprintf(f, " (%zu more crashed or hung: left out)", r->dropped_seeds);
	fprintf(f, "\ncorpus    %zu inputs", r->corpus);
	if (r->coverage)
		fprintf(f, ", %zu edges reached\n", r->edges_hit);
	else
		fprintf(f, ", no edge counts (build with `veles cflags fuzz --link` for them)\n");
	fprintf(f, "crashes   %" PRIu64 "%s, hangs %" PRIu64 " (timeout %.3g s)\n", r->crashes,
		r->session_crashes != r->crashes ? " in all" : "", r->hangs, r->timeout);
	if (r->nworst)
		fprintf(f, "worst     median of 5 runs each, against the costliest seed:\n");
	for (size_t i = 0; i < r->nworst && i < 5; i++) {
		const struct fz_worst *w = &r->worst[i];

		fuzz_cost_str(r->metric, w->cost, cost, sizeof(cost));
		fprintf(f, "  %6.1fx  %-22s %7zu bytes  run %-8" PRIu64 " %s\n", w->ratio, cost,
			w->len, w->found_run, shown(w->path));
	}
	if (r->have_model)
		fprintf(f, "growth    %s in the input's length (r^2 %.3f)\n", r->model,
			r->model_r2);
	else
		fprintf(f, "growth    too few input lengths to fit a model\n");
	if (profile_path)
		fprintf(f, "profile   %s\n", shown(profile_path));
}

static void json_str(struct buf *b, const char *key, const char *s)
{
	buf_addf(b, ",\"%s\":", key);
	if (s)
		buf_add_json_str(b, s, strlen(s));
	else
		buf_adds(b, "null");
}

static void json_num(struct buf *b, const char *key, double v)
{
	if (isfinite(v))
		buf_addf(b, ",\"%s\":%.17g", key, v);
	else
		buf_addf(b, ",\"%s\":null", key);
}

void fuzz_print_json(FILE *f, const struct fz_report *r, const char *profile_path)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "{\"runs\":%" PRIu64 ",\"session_runs\":%" PRIu64, r->runs, r->session_runs);
	json_num(&b, "elapsed", r->elapsed);
	json_num(&b, "session_elapsed", r->session_elapsed);
	json_str(&b, "metric", fz_metric_name(r->metric));
	json_str(&b, "unit", fz_metric_unit(r->metric));
	json_str(&b, "metric_note", r->metric_why);
	buf_addf(&b, ",\"seed\":%" PRIu64 ",\"resumed\":%s,\"interrupted\":%s", r->seed,
		 r->resumed ? "true" : "false", r->interrupted ? "true" : "false");
	buf_addf(&b, ",\"seeds\":%zu,\"dropped_seeds\":%zu,\"corpus\":%zu", r->nseeds,
		 r->dropped_seeds, r->corpus);
	json_num(&b, "base_cost", r->base_cost);
	json_num(&b, "timeout", r->timeout);
	buf_addf(&b, ",\"max_size\":%zu,\"coverage\":%s,\"edges\":%zu", r->max_size,
		 r->coverage ? "true" : "false", r->edges_hit);
	buf_addf(&b, ",\"crashes\":%" PRIu64 ",\"hangs\":%" PRIu64, r->crashes, r->hangs);
	buf_adds(&b, ",\"worst\":[");
	for (size_t i = 0; i < r->nworst; i++) {
		const struct fz_worst *w = &r->worst[i];

		buf_addf(&b, "%s{\"rank\":%zu", i ? "," : "", i + 1);
		json_str(&b, "path", w->path);
		buf_addf(&b, ",\"size\":%zu", w->len);
		json_num(&b, "cost", w->cost);
		json_num(&b, "ratio", w->ratio);
		buf_addf(&b, ",\"found_run\":%" PRIu64, w->found_run);
		json_str(&b, "rules", w->rules);
		buf_addc(&b, '}');
	}
	buf_adds(&b, "]");
	json_str(&b, "model", r->have_model ? r->model : NULL);
	json_num(&b, "model_r2", r->have_model ? r->model_r2 : NAN);
	json_str(&b, "profile", profile_path);
	buf_adds(&b, "}\n");
	fputs(b.data, f);
	buf_release(&b);
}
