/*
 * A record run: samples into DIR/record.data; while it goes, every batch
 * the kernel hands over is also replayed into a live session, so the page
 * gets samples over time (a series: samples and period per second, over
 * each batch) and the
 * running hot-function table. At the end the table and the flame graph
 * are made once from the whole file.
 */
#include <stdlib.h>
#include <string.h>

#include "collect/perf/psample.h"
#include "perf/report.h"
#include "perf/session.h"
#include "serve/hot.h"
#include "serve/job.h"
#include "serve/series.h"
#include "serve/util.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

enum { HOT_ROWS = 50, LIVE_HOT_MS = 250 };

struct rec_job {
	struct job *j;
	struct psample p;
	struct series_writer w;
	struct perf_session *live;
	struct perf_report report;
	struct buf batch; /* records read since the last tick */
	double start, last_hot, last_tick;
	uint64_t batch_samples, batch_period, lost;
	int err;
};

static void on_record(void *arg, const void *rec, size_t len)
{
	buf_add(&((struct rec_job *)arg)->batch, rec, len);
}

static void on_sample(const struct perf_sample *smp, void *arg)
{
	struct rec_job *rj = arg;

	perf_report_add(&rj->report, smp);
	rj->batch_samples++;
	rj->batch_period += smp->period;
}

static void publish_hot(struct rec_job *rj)
{
	struct buf b = BUF_INIT;

	hot_json(&rj->report, HOT_ROWS, &b);
	if (rj->j->live)
		live_set_hot(rj->j->live, buf_detach(&b, NULL), rj->report.samples);
	else
		buf_release(&b);
}

static void on_tick(void *arg)
{
	struct rec_job *rj = arg;
	double now = srv_mono(), row[2], span = now - rj->last_tick;

	rj->batch_samples = rj->batch_period = 0;
	/* A damaged record shows in the final views, made from the file. */
	(void)perf_session_feed(rj->live, rj->batch.data, rj->batch.len, on_sample, rj, &rj->lost);
	buf_reset(&rj->batch);
	/* Rates: batches are as long as the kernel's wake-ups make them. */
	span = span > 1e-6 ? span : 1e-6;
	row[0] = (double)rj->batch_samples / span;
	row[1] = (double)rj->batch_period / span;
	rj->last_tick = now;
	if (rj->err == 0)
		rj->err = series_append(&rj->w, now - rj->start, row);
	if (rj->err == 0)
		job_progress(rj->j, 1, rj->report.samples);
	if ((now - rj->last_hot) * 1000 >= LIVE_HOT_MS) {
		rj->last_hot = now;
		publish_hot(rj);
	}
}

static int start(struct rec_job *rj)
{
	struct job *j = rj->j;
	struct psample_opts o = {.events = *j->run->events ? j->run->events : NULL,
				 .freq = (unsigned long)j->run->freq,
				 .freq_given = j->run->freq > 0,
				 .callchain = j->run->callgraph};
	static const char *const names[] = {"samples", "period"}, *const units[] = {"/s", "/s"};
	struct ptarget_spec spec;
	char *path;
	int ret;

	pthread_mutex_lock(&j->srv->perf_mu);
	ret = psample_events(&rj->p, &o);
	pthread_mutex_unlock(&j->srv->perf_mu);

	path = xasprintf("%s/record.data", j->dir);
	pthread_mutex_lock(&j->srv->perf_mu); /* tracepoints' formats, from tracefs */
	if (ret == 0)
		ret = psample_create(&rj->p, path);
	pthread_mutex_unlock(&j->srv->perf_mu);
	free(path);
	job_spec(j, &spec);
	if (ret == 0)
		ret = psample_open(&rj->p, &spec);
	job_forked(j);
	if (ret < 0)
		return ret;
	pthread_mutex_lock(&j->mu);
	j->target = &rj->p.target;
	pthread_mutex_unlock(&j->mu);
	path = xasprintf("%s/series.bin", j->dir);
	ret = series_create(&rj->w, path, names, units, 2, srv_now_ms());
	free(path);
	rj->live = perf_session_live(&rj->p.h, rj->p.event);
	return ret;
}

/* The finished recording's table and flame graph, kept beside it. */
static int views(struct rec_job *rj)
{
	struct buf hot = BUF_INIT, flame = BUF_INIT;
	char *data = xasprintf("%s/record.data", rj->j->dir);
	char *hp = xasprintf("%s/report.json", rj->j->dir);
	char *fp = xasprintf("%s/flame.json", rj->j->dir);
	int ret = hot_from_file(data, HOT_ROWS, &hot, &flame);

	if (ret == 0)
		ret = file_write_atomic(hp, hot.data, hot.len);
	if (ret == 0)
		ret = file_write_atomic(fp, flame.data, flame.len);
	if (ret == 0 && rj->j->live)
		live_set_hot(rj->j->live, buf_detach(&hot, NULL), rj->report.samples);
	buf_release(&hot);
	buf_release(&flame);
	free(data);
	free(hp);
	free(fp);
	return ret;
}

int job_record(struct job *j)
{
	struct rec_job rj = {.j = j};
	struct psample_hooks hooks = {on_record, on_tick, &rj, 0};
	int ret, cret;

	hooks.batch_ms = j->run->interval_ms > 0 ? (int)j->run->interval_ms : 100;
	if (hooks.batch_ms < 10)
		hooks.batch_ms = 10;
	ret = start(&rj);
	if (ret == 0 && j->canceled && rj.p.target.ch.pid)
		perf_child_kill(&rj.p.target.ch, SIGTERM);
	rj.start = rj.last_hot = rj.last_tick = srv_mono();
	if (ret == 0)
		ret = psample_start(&rj.p);
	if (ret == 0)
		ret = psample_run(&rj.p, &hooks);
	if (ret == 0)
		ret = rj.err;
	if (rj.p.target.reaped) {
		j->run->has_exit = true;
		j->run->exit_status = ptarget_exit_status(&rj.p.target);
	}
	job_reap_group(&rj.p.target);
	pthread_mutex_lock(&j->mu);
	j->target = NULL;
	pthread_mutex_unlock(&j->mu);
	psample_close(&rj.p);
	cret = psample_commit(&rj.p, ret == 0);
	if (ret == 0)
		ret = cret;
	if (series_close(&rj.w) < 0 && ret == 0)
		ret = ERR_IO;
	if (ret == 0)
		ret = views(&rj);
	j->samples = rj.report.samples;
	psample_free(&rj.p);
	perf_session_free(rj.live);
	perf_report_free(&rj.report);
	buf_release(&rj.batch);
	return ret;
}
