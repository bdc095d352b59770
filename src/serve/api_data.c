/* A run's data: the series for drawing, histograms, sums, the record
 * views, its output, and the downloads (api.h). Files are found under the
 * run's own folder by fixed names only, and checked to be inside the data
 * folder once resolved (no symbolic link leads out). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serve/api.h"
#include "serve/series.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

enum { MAX_POINTS = 20000, MAX_BINS = 1000, HOT_LIMIT = 50, OUTPUT_CHUNK = 256 * 1024 };

/* DATA/runs/ID/NAME when it exists and resolves inside DATA; else NULL. */
static char *run_file(struct serve *s, const char *id, const char *name)
{
	char *dir = srv_run_dir(s, id), *path = xasprintf("%s/%s", dir, name);
	char real[PATH_MAX], base[PATH_MAX];

	free(dir);
	if (!realpath(path, real) || !realpath(s->data_dir, base) ||
	    strncmp(real, base, strlen(base)) != 0 || real[strlen(base)] != '/') {
		free(path);
		return NULL;
	}
	return path;
}

static bool open_series(struct serve *s, const struct srv_run *run, struct series *ser,
			struct resp *out)
{
	char *path = run_file(s, run->id, "series.bin");
	int ret = path ? series_open(ser, path) : ERR_NOTFOUND;

	free(path);
	if (ret < 0) {
		resp_error(out, strcmp(run->state, "queued") == 0 ? 409 : 404,
			   strcmp(run->state, "queued") == 0 ? "the run has not started"
							     : "the run has no series");
		return false;
	}
	return true;
}

static void columns_json(const struct series *ser, struct buf *b)
{
	buf_adds(b, "\"columns\":[");
	for (size_t c = 0; c < ser->ncols; c++) {
		if (c)
			buf_addc(b, ',');
		buf_add_json_str(b, ser->names[c], strlen(ser->names[c]));
	}
	buf_adds(b, "],\"units\":[");
	for (size_t c = 0; c < ser->ncols; c++) {
		if (c)
			buf_addc(b, ',');
		buf_add_json_str(b, ser->units[c], strlen(ser->units[c]));
	}
	buf_addf(b, "],\"start_ms\":%lld", (long long)ser->start_ms);
}

/* GET .../series?from=T0&to=T1&points=N */
static void series(struct serve *s, const struct req *r, const struct srv_run *run,
		   struct resp *out)
{
	struct series ser;
	struct series_view v;
	struct buf b = BUF_INIT;
	double t0, t1;
	long long points;

	if (!req_param_double(r, "from", -1e12, 1e12, 0, &t0) ||
	    !req_param_double(r, "to", -1e12, 1e12, -1, &t1) ||
	    !req_param_int(r, "points", 1, MAX_POINTS, 2000, &points)) {
		api_fail(out, ERR_PARSE);
		return;
	}
	if (!req_param(r, "to"))
		t1 = t0 - 1; /* everything */
	if (!open_series(s, run, &ser, out))
		return;
	series_window(&ser, t0, t1, (size_t)points, &v);
	buf_addc(&b, '{');
	columns_json(&ser, &b);
	buf_addf(&b, ",\"rows\":%llu,\"total_rows\":%llu,\"exact\":%s,\"from\":",
		 (unsigned long long)v.rows, (unsigned long long)series_rows(&ser),
		 v.exact ? "true" : "false");
	json_num(&b, v.t0);
	buf_adds(&b, ",\"to\":");
	json_num(&b, v.t1);
	buf_adds(&b, ",\"t\":[");
	for (size_t i = 0; i < v.n; i++) {
		if (i)
			buf_addc(&b, ',');
		buf_addf(&b, "%.9g", v.t[i]);
	}
	buf_adds(&b, "],\"v\":[");
	for (size_t c = 0; c < ser.ncols; c++) {
		buf_adds(&b, c ? ",[" : "[");
		for (size_t i = 0; i < v.n; i++) {
			if (i)
				buf_addc(&b, ',');
			json_num(&b, v.v[i * ser.ncols + c]);
		}
		buf_addc(&b, ']');
	}
	buf_adds(&b, "]}\n");
	series_view_free(&v);
	series_free(&ser);
	resp_json(out, 200, &b);
}

/* GET .../histogram?column=NAME&bins=N */
static void histogram(struct serve *s, const struct req *r, const struct srv_run *run,
		      struct resp *out)
{
	const char *col = req_param(r, "column");
	struct series ser;
	struct buf b = BUF_INIT;
	long long bins;
	size_t c = 0;

	if (!req_param_int(r, "bins", 1, MAX_BINS, 40, &bins)) {
		api_fail(out, ERR_PARSE);
		return;
	}
	if (!open_series(s, run, &ser, out))
		return;
	while (col && c < ser.ncols && strcmp(ser.names[c], col) != 0)
		c++;
	if (c >= ser.ncols) {
		series_free(&ser);
		resp_error(out, 400, "no such column in this run");
		return;
	}
	double *edges = xcalloc((size_t)bins + 1, sizeof(double));
	uint64_t *counts = xcalloc((size_t)bins, sizeof(uint64_t));

	series_histogram(&ser, c, (size_t)bins, edges, counts);
	buf_adds(&b, "{\"column\":");
	buf_add_json_str(&b, ser.names[c], strlen(ser.names[c]));
	buf_adds(&b, ",\"unit\":");
	buf_add_json_str(&b, ser.units[c], strlen(ser.units[c]));
	buf_adds(&b, ",\"edges\":[");
	for (long long i = 0; i <= bins; i++) {
		if (i)
			buf_addc(&b, ',');
		json_num(&b, edges[i]);
	}
	buf_adds(&b, "],\"counts\":[");
	for (long long i = 0; i < bins; i++)
		buf_addf(&b, "%s%llu", i ? "," : "", (unsigned long long)counts[i]);
	buf_adds(&b, "]}\n");
	free(edges);
	free(counts);
	series_free(&ser);
	resp_json(out, 200, &b);
}

/* GET .../totals: each column summed over the run. */
static void totals(struct serve *s, const struct srv_run *run, struct resp *out)
{
	struct series ser;
	struct buf b = BUF_INIT;
	double sum[SERIES_MAX_COLS];

	if (!open_series(s, run, &ser, out))
		return;
	series_sums(&ser, sum);
	buf_addc(&b, '{');
	columns_json(&ser, &b);
	buf_addf(&b, ",\"rows\":%llu,\"sums\":[", (unsigned long long)series_rows(&ser));
	for (size_t c = 0; c < ser.ncols; c++) {
		if (c)
			buf_addc(&b, ',');
		json_num(&b, sum[c]);
	}
	buf_adds(&b, "]}\n");
	series_free(&ser);
	resp_json(out, 200, &b);
}

/* GET .../report and .../flame: kept as JSON when a record run ends; the
 * running table comes from the live entry meanwhile. */
static void record_view(struct serve *s, const struct srv_run *run, const char *name,
			struct resp *out)
{
	char *path;
	struct buf b = BUF_INIT;

	if (strcmp(run->tool, "record") != 0) {
		resp_error(out, 404, "only record runs have hot functions and flame graphs");
		return;
	}
	path = run_file(s, run->id, name);
	if (path && file_read_all(path, &b) == 0) {
		free(path);
		buf_addc(&b, '\n');
		resp_json(out, 200, &b);
		return;
	}
	free(path);
	if (strcmp(name, "report.json") == 0) {
		struct live *l = live_get(&s->live, run->id);

		if (l) {
			pthread_mutex_lock(&l->mu);
			if (l->hot)
				buf_adds(&b, l->hot);
			pthread_mutex_unlock(&l->mu);
			live_put(l);
		}
		if (b.len) {
			buf_addc(&b, '\n');
			resp_json(out, 200, &b);
			return;
		}
	}
	resp_error(out, srv_state_final(run->state) ? 404 : 409,
		   srv_state_final(run->state) ? "the run left no recording"
					       : "not yet: the run has not ended");
}

/* GET .../output?stream=stdout|stderr&from=N: JSON, or the whole log as
 * a download with &download=1. */
static void output(struct serve *s, const struct req *r, const struct srv_run *run,
		   struct resp *out)
{
	const char *st = req_param(r, "stream");
	bool err = st && strcmp(st, "stderr") == 0;
	char *path;
	long long from;
	struct buf b = BUF_INIT, text = BUF_INIT;

	if ((st && !err && strcmp(st, "stdout") != 0) ||
	    !req_param_int(r, "from", 0, LLONG_MAX, 0, &from)) {
		resp_error(out, 400, "stream must be stdout or stderr; from a byte offset");
		return;
	}
	path = run_file(s, run->id, err ? "stderr.log" : "stdout.log");
	if (req_param(r, "download")) {
		if (!path) {
			resp_error(out, 404, "no output");
			return;
		}
		out->status = 200;
		out->ctype = "text/plain; charset=utf-8";
		out->file = path;
		out->filename = xasprintf("veles-%.8s.%s.txt", run->id, err ? "stderr" : "stdout");
		return;
	}
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	struct stat sb = {0};

	free(path);
	if (fd >= 0 && fstat(fd, &sb) == 0 && from < sb.st_size) {
		size_t want = (size_t)(sb.st_size - from) < OUTPUT_CHUNK
				      ? (size_t)(sb.st_size - from)
				      : OUTPUT_CHUNK;
		ssize_t got;

		buf_grow(&text, want);
		got = pread(fd, text.data, want, (off_t)from);
		text.len = got > 0 ? (size_t)got : 0;
		text.data[text.len] = '\0';
	}
	if (fd >= 0)
		close(fd);
	buf_addf(&b, "{\"stream\":\"%s\",\"from\":%lld,\"next\":%lld,\"size\":%lld,\"text\":",
		 err ? "stderr" : "stdout", from, from + (long long)text.len,
		 (long long)sb.st_size);
	buf_add_json_str(&b, text.data ? text.data : "", text.len);
	buf_adds(&b, "}\n");
	buf_release(&text);
	resp_json(out, 200, &b);
}

/* ---- CSV, generated while it is sent ---- */

struct csv {
	struct series ser;
	uint64_t row, rows;
	bool head;
	struct buf pending;
	size_t at;
};

static void csv_fill(struct csv *c)
{
	double t[256], *v = xmalloc(256 * sizeof(double) * (c->ser.ncols + 1));
	size_t n;

	if (!c->head) {
		buf_adds(&c->pending, "time");
		for (size_t k = 0; k < c->ser.ncols; k++) {
			buf_addc(&c->pending, ',');
			buf_add_csv(&c->pending, c->ser.names[k]);
		}
		buf_addc(&c->pending, '\n');
		c->head = true;
	}
	n = series_read(&c->ser, c->row, c->rows - c->row < 256 ? (size_t)(c->rows - c->row) : 256,
			t, v);
	for (size_t i = 0; i < n; i++) {
		buf_addf(&c->pending, "%.9f", t[i]);
		for (size_t k = 0; k < c->ser.ncols; k++) {
			double x = v[i * c->ser.ncols + k];

			buf_addc(&c->pending, ',');
			if (isfinite(x))
				buf_addf(&c->pending, "%.10g", x);
		}
		buf_addc(&c->pending, '\n');
	}
	c->row += n;
	if (n == 0)
		c->row = c->rows; /* a short read: the file shrank; end here */
	free(v);
}

static ssize_t csv_read(void *arg, char *out, size_t max)
{
	struct csv *c = arg;
	size_t n;

	if (c->at == c->pending.len) {
		buf_reset(&c->pending);
		c->at = 0;
		if (c->head && c->row >= c->rows)
			return -1;
		csv_fill(c);
	}
	n = c->pending.len - c->at < max ? c->pending.len - c->at : max;
	memcpy(out, c->pending.data + c->at, n);
	c->at += n;
	return (ssize_t)n;
}

static void csv_free(void *arg)
{
	struct csv *c = arg;

	series_free(&c->ser);
	buf_release(&c->pending);
	free(c);
}

static void csv(struct serve *s, const struct srv_run *run, struct resp *out)
{
	struct csv *c = xcalloc(1, sizeof(*c));

	if (!open_series(s, run, &c->ser, out)) {
		free(c);
		return;
	}
	c->rows = series_rows(&c->ser);
	out->status = 200;
	out->ctype = "text/csv; charset=utf-8";
	out->filename = xasprintf("veles-%.8s-%s.csv", run->id, run->tool);
	out->streaming = true;
	out->stream = (struct resp_stream){csv_read, csv_free, c};
}

/* GET .../raw: the record file of a record run, the series as CSV of a
 * stat run. */
static void raw(struct serve *s, const struct srv_run *run, struct resp *out)
{
	char *path;

	if (strcmp(run->tool, "record") != 0) {
		csv(s, run, out);
		return;
	}
	if (!(path = run_file(s, run->id, "record.data"))) {
		resp_error(out, srv_state_final(run->state) ? 404 : 409,
			   srv_state_final(run->state)
				   ? "the run left no recording"
				   : "not yet: the recording is written at the end");
		return;
	}
	out->status = 200;
	out->ctype = "application/octet-stream";
	out->file = path;
	out->filename = xasprintf("veles-%.8s.data", run->id);
}

void api_run_data(struct serve *s, const struct req *r, const struct srv_run *run, const char *what,
		  struct resp *out)
{
	if (strcmp(what, "series") == 0)
		series(s, r, run, out);
	else if (strcmp(what, "histogram") == 0)
		histogram(s, r, run, out);
	else if (strcmp(what, "totals") == 0)
		totals(s, run, out);
	else if (strcmp(what, "report") == 0)
		record_view(s, run, "report.json", out);
	else if (strcmp(what, "flame") == 0)
		record_view(s, run, "flame.json", out);
	else if (strcmp(what, "output") == 0)
		output(s, r, run, out);
	else if (strcmp(what, "csv") == 0)
		csv(s, run, out);
	else if (strcmp(what, "raw") == 0)
		raw(s, run, out);
	else if (strcmp(what, "hdf5") == 0)
		api_hdf5_run(s, run, out);
	else
		resp_error(out, 404, "no such part of a run");
}
