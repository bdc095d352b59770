/* A stat run: counts per interval (or for the whole run) into the run's
 * series file, every row published to live readers at once. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collect/perf/pcount.h"
#include "perf/metrics.h"
#include "serve/job.h"
#include "serve/series.h"
#include "serve/util.h"
#include "util/error.h"
#include "util/xalloc.h"

struct stat_job {
	struct job *j;
	struct series_writer w;
	double *row;
	int err;
};

/* A count as the page shows it: clocks in msec as perf prints them, NaN
 * for an event the kernel refused. An interval the event never ran in
 * (the program slept) counted nothing: 0, where perf prints <not counted>. */
static double shown(const struct perf_counter *c, const struct pcount_value *v)
{
	if (c->unsupported)
		return NAN;
	if (!v->running)
		return 0;
	return perf_is_clock(c) ? v->value / 1e6 : v->value;
}

static void on_values(void *arg, const struct perf_counters *cs, const struct pcount_value *v,
		      double span_ns, double t)
{
	struct stat_job *sj = arg;

	(void)span_ns;
	if (sj->err < 0)
		return;
	for (size_t i = 0; i < cs->n; i++)
		sj->row[i] = shown(&cs->v[i], &v[i]);
	sj->err = series_append(&sj->w, t, sj->row);
	if (sj->err == 0)
		job_progress(sj->j, 1, 0);
}

static int start_series(struct stat_job *sj, const struct perf_counters *cs)
{
	const char *names[SERIES_MAX_COLS], *units[SERIES_MAX_COLS];
	char *path = xasprintf("%s/series.bin", sj->j->dir);
	int ret;

	if (cs->n > SERIES_MAX_COLS) {
		free(path);
		return err_set(ERR_INVALID, "at most %d events in one run", SERIES_MAX_COLS);
	}
	for (size_t i = 0; i < cs->n; i++) {
		names[i] = cs->v[i].name;
		units[i] = perf_is_clock(&cs->v[i]) ? "msec" : "";
	}
	ret = series_create(&sj->w, path, names, units, cs->n, srv_now_ms());
	free(path);
	sj->row = xcalloc(cs->n ? cs->n : 1, sizeof(double));
	return ret;
}

int job_stat(struct job *j)
{
	struct pcount c = {0};
	struct stat_job sj = {.j = j};
	struct ptarget_spec spec;
	int ret;

	pthread_mutex_lock(&j->srv->perf_mu);
	ret = pcount_events(&c, j->run->events);
	pthread_mutex_unlock(&j->srv->perf_mu);

	job_spec(j, &spec);
	if (ret == 0)
		ret = pcount_open(&c, &spec);
	job_forked(j);
	if (ret == 0) {
		pthread_mutex_lock(&j->mu);
		j->target = &c.target;
		pthread_mutex_unlock(&j->mu);
		ret = start_series(&sj, &c.cs);
	}
	/* A cancel that came before the target existed: stop at once. */
	if (ret == 0 && j->canceled && c.target.ch.pid)
		perf_child_kill(&c.target.ch, SIGTERM);
	if (ret == 0)
		ret = pcount_start(&c);
	if (ret == 0)
		ret = pcount_run(&c, (unsigned long)j->run->interval_ms, on_values, &sj);
	if (ret == 0)
		ret = sj.err;
	if (c.target.reaped) {
		j->run->has_exit = true;
		j->run->exit_status = ptarget_exit_status(&c.target);
	}
	/* What the command left running in its group goes with it. */
	job_reap_group(&c.target);
	pthread_mutex_lock(&j->mu);
	j->target = NULL;
	pthread_mutex_unlock(&j->mu);
	if (series_close(&sj.w) < 0 && ret == 0)
		ret = ERR_IO;
	free(sj.row);
	pcount_free(&c);
	return ret;
}
