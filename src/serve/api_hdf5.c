/*
 * GET /api/runs/ID/hdf5 and /api/sessions/ID/hdf5: a run, or every run of
 * a session, as one HDF5 file (hdf5.h): per run a group run_ID (its
 * settings as attributes) holding "stat" (the counts over time) for a stat
 * run, or "samples" (samples and period over time), "hot" (the functions
 * by overhead), "events" (every sample) and "symbols" for a record run.
 * The HDF5 library this links is not thread-safe: one export at a time.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf/report.h"
#include "perf/session.h"
#include "serve/api.h"
#include "serve/hdf5.h"
#include "serve/series.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/strmap.h"
#include "util/xalloc.h"

static pthread_mutex_t h5_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long exports; /* under h5_lock: temporary files' names */

/* A name for a temporary export file nobody else uses. */
static char *temp_name(const char *prefix)
{
	unsigned long n;

	pthread_mutex_lock(&h5_lock);
	n = ++exports;
	pthread_mutex_unlock(&h5_lock);
	return xasprintf("%s.%d.%lu.tmp.h5", prefix, (int)getpid(), n);
}

static char *group_of(const struct srv_run *run)
{
	char *g = xasprintf("/run_%s", run->id);

	for (char *c = g; *c; c++)
		if (*c == '-')
			*c = '_';
	return g;
}

static int run_attrs(struct h5_file *f, const char *g, const struct srv_run *run)
{
	const char *text[][2] = {{"id", run->id},	    {"session", run->session},
				 {"tool", run->tool},	    {"events", run->events},
				 {"command", run->command}, {"env", run->env},
				 {"state", run->state}};
	int ret = 0;

	for (size_t i = 0; i < sizeof(text) / sizeof(text[0]) && ret == 0; i++)
		ret = h5_attr(f, g, text[i][0], text[i][1]);
	if (ret == 0)
		ret = h5_attr_int(f, g, "created_ms", run->created);
	if (ret == 0)
		ret = h5_attr_int(f, g, "interval_ms", run->interval_ms);
	if (ret == 0)
		ret = h5_attr_int(f, g, "pid", run->pid);
	if (ret == 0 && run->has_exit)
		ret = h5_attr_int(f, g, "exit_status", run->exit_status);
	return ret;
}

/* The series file as a frame indexed by time. */
static int series_frame(struct h5_file *f, const char *dir, const char *path)
{
	struct series ser;
	char *file = xasprintf("%s/series.bin", dir);
	int ret = series_open(&ser, file);
	uint64_t rows;
	double *t, *v;

	free(file);
	if (ret == ERR_NOTFOUND)
		return 0; /* never started: nothing to write */
	if (ret < 0)
		return ret;
	rows = series_rows(&ser);
	t = xmalloc((rows ? rows : 1) * sizeof(double));
	v = xmalloc((rows ? rows : 1) * sizeof(double) * (ser.ncols + 1));
	rows = series_read(&ser, 0, (size_t)rows, t, v);
	ret = h5_frame(f, path, (const char *const *)ser.names, ser.ncols, v, (size_t)rows, t,
		       NULL);
	if (ret == 0)
		ret = h5_attr_int(f, path, "start_ms", ser.start_ms);
	free(t);
	free(v);
	series_free(&ser);
	return ret;
}

/* Every sample of a recording, and where they fell. */
struct samples {
	struct perf_report report;
	struct strmap syms;
	int64_t *rows;
	size_t n, cap;
};

enum { SAMPLE_COLS = 7 };

static void on_sample(const struct perf_sample *smp, void *arg)
{
	struct samples *s = arg;
	size_t sym = strmap_intern(&s->syms, perf_loc_sym(&smp->at), NULL);
	int64_t *r;

	perf_report_add(&s->report, smp);
	s->rows = xgrow(s->rows, SAMPLE_COLS * sizeof(int64_t), s->n + 1, &s->cap);
	r = s->rows + s->n++ * SAMPLE_COLS;
	r[0] = (int64_t)smp->time;
	r[1] = smp->pid;
	r[2] = smp->tid;
	r[3] = smp->cpu;
	r[4] = (int64_t)smp->period;
	r[5] = (int64_t)smp->at.ip;
	r[6] = (int64_t)sym;
}

static int hot_frame(struct h5_file *f, const char *path, const struct perf_report *r)
{
	static const char *const cols[] = {"overhead", "samples", "period"};
	size_t n, *top = perf_report_top(r, r->n, &n);
	const char **names = xcalloc(n ? n : 1, sizeof(*names));
	double *v = xcalloc(n ? n * 3 : 1, sizeof(double));
	int ret;

	for (size_t i = 0; i < n; i++) {
		const struct perf_report_entry *e = &r->v[top[i]];

		names[i] = e->sym;
		v[i * 3] = perf_report_pct(e->period, r->total);
		v[i * 3 + 1] = (double)e->samples;
		v[i * 3 + 2] = (double)e->period;
	}
	ret = h5_frame(f, path, cols, 3, v, n, NULL, names);
	free(top);
	free(names);
	free(v);
	return ret;
}

static int symbols_frame(struct h5_file *f, const char *path, const struct strmap *syms)
{
	static const char *const cols[] = {"id"};
	const char **names = xcalloc(syms->n ? syms->n : 1, sizeof(*names));
	int64_t *ids = xcalloc(syms->n ? syms->n : 1, sizeof(int64_t));
	int ret;

	for (size_t j = 0; j < syms->cap; j++)
		if (syms->keys[j]) {
			names[syms->vals[j]] = syms->keys[j];
			ids[syms->vals[j]] = (int64_t)syms->vals[j];
		}
	ret = h5_frame_i64(f, path, cols, 1, ids, syms->n, NULL, names);
	free(names);
	free(ids);
	return ret;
}

static int record_frames(struct h5_file *f, const char *dir, const char *g)
{
	static const char *const cols[SAMPLE_COLS] = {"time_ns", "pid", "tid",	    "cpu",
						      "period",	 "ip",	"symbol_id"};
	char *file = xasprintf("%s/record.data", dir), *p;
	struct perf_session *ses;
	struct samples s = {0};
	uint64_t lost;
	int ret = path_exists(file) ? perf_session_open(file, &ses) : ERR_NOTFOUND;

	free(file);
	if (ret == ERR_NOTFOUND)
		return 0;
	if (ret < 0)
		return ret;
	perf_session_samples(ses, on_sample, &s, &lost);
	p = xasprintf("%s/hot", g);
	ret = hot_frame(f, p, &s.report);
	free(p);
	if (ret == 0) {
		p = xasprintf("%s/events", g);
		ret = h5_frame_i64(f, p, cols, SAMPLE_COLS, s.rows, s.n, NULL, NULL);
		free(p);
	}
	if (ret == 0) {
		p = xasprintf("%s/symbols", g);
		ret = symbols_frame(f, p, &s.syms);
		free(p);
	}
	perf_report_free(&s.report);
	strmap_free(&s.syms);
	free(s.rows);
	perf_session_free(ses);
	return ret;
}

static int add_run(struct serve *srv, struct h5_file *f, const struct srv_run *run)
{
	char *g = group_of(run), *dir = srv_run_dir(srv, run->id), *p;
	bool stat = strcmp(run->tool, "stat") == 0;
	int ret = h5_group(f, g);

	if (ret == 0)
		ret = run_attrs(f, g, run);
	if (ret == 0) {
		p = xasprintf("%s/%s", g, stat ? "stat" : "samples");
		ret = series_frame(f, dir, p);
		free(p);
	}
	if (ret == 0 && !stat)
		ret = record_frames(f, dir, g);
	free(g);
	free(dir);
	return ret;
}

/* Writes the runs into a new file @path. */
static int export(struct serve *srv, const char *path, const struct srv_run *runs, size_t n)
{
	struct h5_file *f;
	int ret;

	pthread_mutex_lock(&h5_lock);
	ret = h5_create(path, &f);
	for (size_t i = 0; i < n && ret == 0; i++)
		ret = add_run(srv, f, &runs[i]);
	if (ret == 0)
		ret = h5_close(f);
	else
		h5_close(f);
	pthread_mutex_unlock(&h5_lock);
	if (ret < 0)
		unlink(path);
	return ret;
}

static void send_file(struct resp *out, char *path, bool temporary, char *name)
{
	out->status = 200;
	out->ctype = "application/x-hdf5";
	out->file = path;
	out->unlink_file = temporary;
	out->filename = name;
}

void api_hdf5_run(struct serve *s, const struct srv_run *run, struct resp *out)
{
	char *dir = srv_run_dir(s, run->id);
	bool final = srv_state_final(run->state);
	/* A finished run's file is made once and kept beside its data. */
	char *base = xasprintf("%s/export", dir);
	char *path = final ? xasprintf("%s.h5", base) : temp_name(base);
	char *tmp = final ? temp_name(base) : NULL;
	int ret = 0;

	if (!path_exists(dir)) {
		free(dir);
		free(base);
		free(path);
		free(tmp);
		resp_error(out, 409, "the run has not started");
		return;
	}
	if (!final || !path_exists(path)) {
		ret = export(s, final ? tmp : path, run, 1);
		if (ret == 0 && final && rename(tmp, path) < 0)
			ret = err_set(ERR_IO, "cannot keep %s", path);
	}
	free(dir);
	free(base);
	free(tmp);
	if (ret < 0) {
		free(path);
		api_fail(out, ret);
		return;
	}
	send_file(out, path, !final, xasprintf("veles-%.8s.h5", run->id));
}

void api_hdf5_session(struct serve *s, const struct srv_session *ses, struct resp *out)
{
	struct srv_run *v;
	size_t n;
	char *prefix = xasprintf("%s/session-%s", s->data_dir, ses->id);
	char *path = temp_name(prefix);
	int ret = model_runs_list(s->db, ses->id, NULL, &v, &n);

	free(prefix);
	if (ret == 0) {
		ret = export(s, path, v, n);
		srv_runs_free(v, n);
	}
	if (ret < 0) {
		free(path);
		api_fail(out, ret);
		return;
	}
	send_file(out, path, true, xasprintf("veles-session-%.8s.h5", ses->id));
}
