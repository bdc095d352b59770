/* veles run's output: the progress line a thread redraws while a job
 * runs, a line (or a JSON record) per job, and the summary. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/run.h"
#include "run/run.h"
#include "util/buf.h"
#include "util/common.h"

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- reporting ---- */

static void job_text(const struct run_job *job, struct buf *b)
{
	buf_adds(b, job->cmd);
	if (*job->args)
		buf_addf(b, " %s", job->args);
	if (*job->workload)
		buf_addf(b, " %s", job->workload);
	buf_addf(b, " (%s)", job->collector->name);
}

/*
 * The progress line, redrawn a few times a second by a thread while a job
 * runs, so its elapsed time moves. The lock keeps it from drawing in the
 * middle of another line Veles writes (a postprocessor's warning).
 */
struct progress {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool running, stop, shown;
	char *text; /* "[i/N] cmd args workload (collector)" */
	double job_start;
};

static struct progress progress = {.lock = PTHREAD_MUTEX_INITIALIZER,
				   .wake = PTHREAD_COND_INITIALIZER};

#define PROGRESS_TICK_MS 250

static void progress_paint(void)
{
	fprintf(stderr, "\r%.72s  %.1f s\033[K", progress.text, now_seconds() - progress.job_start);
	fflush(stderr);
	progress.shown = true;
}

static void *progress_loop(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&progress.lock);
	while (!progress.stop) {
		struct timespec until;

		progress_paint();
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += PROGRESS_TICK_MS * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		while (!progress.stop &&
		       pthread_cond_timedwait(&progress.wake, &progress.lock, &until) == 0)
			;
	}
	pthread_mutex_unlock(&progress.lock);
	return NULL;
}

static void progress_draw(struct run_cli *r, const struct run_job *job, const struct run_tally *t)
{
	struct buf b = BUF_INIT;
	sigset_t all, old;

	if (!r->ctx->stderr_tty)
		return;
	buf_addf(&b, "[%zu/%zu] ", t->done + 1, t->total);
	job_text(job, &b);
	free(progress.text);
	progress.text = buf_detach(&b, NULL);
	progress.job_start = now_seconds();
	progress.stop = false;
	/* Signals stay with the main thread, which forwards Ctrl-C to the job. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	progress.running = pthread_create(&progress.thread, NULL, progress_loop, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!progress.running) {
		pthread_mutex_lock(&progress.lock);
		progress_paint();
		pthread_mutex_unlock(&progress.lock);
	}
}

void run_progress_clear(struct run_cli *r)
{
	if (!r->ctx->stderr_tty)
		return;
	if (progress.running) {
		pthread_mutex_lock(&progress.lock);
		progress.stop = true;
		pthread_cond_signal(&progress.wake);
		pthread_mutex_unlock(&progress.lock);
		pthread_join(progress.thread, NULL);
		progress.running = false;
	}
	if (progress.shown)
		fputs("\r\033[K", stderr);
	progress.shown = false;
	free(progress.text);
	progress.text = NULL;
}

/* A warning (a postprocessor's note) on a line of its own, not after the
 * progress line; the next tick draws that again. */
void run_message(void *arg, enum collect_msg kind, const char *text)
{
	if (kind != COLLECT_MSG_WARN) {
		cli_collect_message(arg, kind, text);
		return;
	}
	pthread_mutex_lock(&progress.lock);
	if (progress.shown)
		fputs("\r\033[K", stderr);
	progress.shown = false;
	cli_warn("%s", text);
	pthread_mutex_unlock(&progress.lock);
}

static const char *shown_path(const char *path)
{
	const char *at = path ? strstr(path, ".veles/jobs/") : NULL;

	return at ? at : path ? path : "";
}

static void json_str(struct buf *b, const char *key, const char *s, bool comma)
{
	buf_addf(b, "%s\"%s\":", comma ? "," : "", key);
	if (s)
		buf_add_json_str(b, s, strlen(s));
	else
		buf_adds(b, "null");
}

/* run_jobs_opts.done: a line per job, or its JSON record. */
void run_job_done(void *arg, const char *version, const struct run_job *job,
		  const struct run_result *res, const struct run_tally *t)
{
	struct run_cli *r = arg;
	struct buf b = BUF_INIT;

	run_progress_clear(r);
	if (r->format == FORMAT_JSON) {
		buf_adds(&r->json, r->json.len ? ",{" : "{");
		json_str(&r->json, "version", version, false);
		json_str(&r->json, "cmd", job->cmd, true);
		json_str(&r->json, "args", job->args, true);
		json_str(&r->json, "workload", job->workload, true);
		json_str(&r->json, "collector", job->collector->name, true);
		buf_addf(&r->json, ",\"ok\":%s,\"seconds\":%.6f,\"registered\":%s",
			 res->ok ? "true" : "false", res->seconds,
			 res->registered ? "true" : "false");
		json_str(&r->json, "profile", res->ok && !res->registered ? res->profile : NULL,
			 true);
		json_str(&r->json, "error", res->error, true);
		buf_addc(&r->json, '}');
		return;
	}
	job_text(job, &b);
	if (res->ok && !r->quiet)
		printf("ok    %zu/%zu  %s  %.2f s  %s\n", t->done + 1, t->total, buf_str(&b),
		       res->seconds, res->registered ? "registered" : shown_path(res->profile));
	else if (!res->ok)
		cli_error("job %zu/%zu %s failed: %s", t->done + 1, t->total, buf_str(&b),
			  res->error);
	fflush(stdout);
	buf_release(&b);
}

/* run_jobs_opts.start: the progress line, on a terminal. */
void run_job_start(void *arg, const struct run_job *job, const struct run_tally *t)
{
	progress_draw(arg, job, t);
}

void run_print_summary(struct run_cli *r)
{
	if (r->format == FORMAT_JSON) {
		fflush(stdout);
		dup2(r->real_stdout, 1);
		close(r->real_stdout);
		printf("{\"jobs\":%zu,\"ok\":%zu,\"failed\":%zu,\"results\":[%s]}\n", r->t.done,
		       r->t.ok, r->t.failed, buf_str(&r->json));
		return;
	}
	if (r->quiet && !r->t.failed)
		return;
	printf("%zu job%s: %zu ok, %zu failed", r->t.done, r->t.done == 1 ? "" : "s", r->t.ok,
	       r->t.failed);
	if (r->t.ok)
		printf("; %s", r->m->register_after_run ? "profiles registered"
							: "profiles pending in .veles/jobs/");
	printf("\n");
}
