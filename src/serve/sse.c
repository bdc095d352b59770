/*
 * GET /api/runs/ID/live: a run as Server-Sent Events. Each event carries
 * the id "ROWS.OUT.ERR.HOT" (rows of the series, bytes of stdout and
 * stderr, version of the hot-function table sent so far), so a browser
 * that reconnects (EventSource sends Last-Event-ID) resumes where it left:
 * nothing is sent twice and nothing is lost. Events: state, rows, output,
 * hot, end. Rows that come faster than one message every SEND_GAP_MS are
 * sent together.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "serve/api.h"
#include "serve/series.h"
#include "serve/util.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

enum {
	SEND_GAP_MS = 20,
	MAX_ROWS_PER_EVENT = 2000,
	MAX_OUTPUT_PER_EVENT = 32 * 1024,
	KEEPALIVE_S = 15,
};

struct sse {
	struct serve *srv;
	char id[37];
	char tool[8];
	char *dir;
	struct live *live; /* NULL once over (or when another server runs it) */
	struct req_cursor at;
	struct series ser;
	bool ser_open;
	char sent_state[12];
	int64_t sent_pos;
	bool over, ended;
	bool units_sent; /* the columns' units, with the first rows */
	double last_rows, last_send, last_db;
	struct buf pending;
	size_t off;
};

static void sse_free(void *arg)
{
	struct sse *e = arg;

	live_put(e->live);
	if (e->ser_open)
		series_free(&e->ser);
	buf_release(&e->pending);
	free(e->dir);
	free(e);
}

static void event(struct sse *e, const char *name, const struct buf *data)
{
	buf_addf(&e->pending, "event: %s\nid: %llu.%llu.%llu.%llu\ndata: ", name,
		 (unsigned long long)e->at.rows, (unsigned long long)e->at.out,
		 (unsigned long long)e->at.err, (unsigned long long)e->at.hot);
	buf_add(&e->pending, data->data, data->len);
	buf_adds(&e->pending, "\n\n");
}

/* The state as the database has it now, sent when it changed (or, while
 * queued, when the run's place in the queue did). */
static void state(struct sse *e, bool force)
{
	struct srv_run run;
	struct buf b = BUF_INIT;
	int64_t pos = 0;

	e->last_db = srv_mono();
	if (model_run_get(e->srv->db, e->id, &run) < 0) {
		snprintf(run.state, sizeof(run.state), "deleted");
		run.events = run.command = run.env = run.error = run.screen = NULL;
	}
	if (strcmp(run.state, "queued") == 0)
		model_run_position(e->srv->db, run.seq, &pos);
	e->over = srv_state_final(run.state) || strcmp(run.state, "deleted") == 0;
	if (force || strcmp(run.state, e->sent_state) != 0 || pos != e->sent_pos) {
		snprintf(e->sent_state, sizeof(e->sent_state), "%s", run.state);
		e->sent_pos = pos;
		buf_addf(&b, "{\"state\":\"%s\",\"position\":%lld,\"started\":%lld,\"ended\":%lld",
			 run.state, (long long)pos, (long long)run.started, (long long)run.ended);
		if (e->over && run.has_exit)
			buf_addf(&b, ",\"exit_status\":%lld", (long long)run.exit_status);
		else
			buf_adds(&b, ",\"exit_status\":null");
		buf_adds(&b, ",\"error\":");
		if (run.error)
			buf_add_json_str(&b, run.error, strlen(run.error));
		else
			buf_adds(&b, "null");
		buf_addf(&b, ",\"start_ms\":%lld}", e->ser_open ? (long long)e->ser.start_ms : 0LL);
		event(e, "state", &b);
	}
	buf_release(&b);
	if (strcmp(run.state, "deleted") != 0)
		srv_run_clear(&run);
}

/* What is there to send: the counts the live entry (or the files) have. */
struct have {
	uint64_t rows, out, err, hot;
	char *hot_json;
};

static uint64_t file_size(const struct sse *e, const char *name)
{
	char *path = xasprintf("%s/%s", e->dir, name);
	struct stat st;
	uint64_t n = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;

	free(path);
	return n;
}

static void open_series(struct sse *e)
{
	char *path;

	if (e->ser_open)
		return;
	path = xasprintf("%s/series.bin", e->dir);
	e->ser_open = series_open(&e->ser, path) == 0;
	free(path);
}

static void have(struct sse *e, struct have *h)
{
	memset(h, 0, sizeof(*h));
	open_series(e);
	if (e->live) {
		pthread_mutex_lock(&e->live->mu);
		h->rows = e->live->rows;
		h->out = e->live->out_bytes;
		h->err = e->live->err_bytes;
		h->hot = e->live->hot_version;
		if (h->hot > e->at.hot && e->live->hot)
			h->hot_json = xstrdup(e->live->hot);
		pthread_mutex_unlock(&e->live->mu);
		return;
	}
	h->rows = e->ser_open ? series_rows(&e->ser) : 0;
	h->out = file_size(e, "stdout.log");
	h->err = file_size(e, "stderr.log");
	if (e->at.hot == 0 && strcmp(e->tool, "record") == 0) {
		char *path = xasprintf("%s/report.json", e->dir);
		struct buf b = BUF_INIT;

		if (file_read_all(path, &b) == 0) {
			h->hot = 1;
			h->hot_json = buf_detach(&b, NULL);
		}
		buf_release(&b);
		free(path);
	}
}

static void send_rows(struct sse *e, uint64_t upto)
{
	size_t n = upto - e->at.rows > MAX_ROWS_PER_EVENT ? MAX_ROWS_PER_EVENT
							  : (size_t)(upto - e->at.rows);
	double *t = xmalloc(n * sizeof(double) + 1);
	double *v = xmalloc(n * sizeof(double) * (e->ser.ncols + 1) + 1);
	struct buf b = BUF_INIT;
	uint64_t from = e->at.rows;

	n = series_read(&e->ser, from, n, t, v);
	if (n) {
		buf_addf(&b, "{\"from\":%llu,\"start_ms\":%lld,", (unsigned long long)from,
			 (long long)e->ser.start_ms);
		if (!e->units_sent) {
			buf_adds(&b, "\"units\":[");
			for (size_t c = 0; c < e->ser.ncols; c++) {
				if (c)
					buf_addc(&b, ',');
				buf_add_json_str(&b, e->ser.units[c], strlen(e->ser.units[c]));
			}
			buf_adds(&b, "],");
			e->units_sent = true;
		}
		buf_adds(&b, "\"t\":[");
		for (size_t i = 0; i < n; i++)
			buf_addf(&b, "%s%.9g", i ? "," : "", t[i]);
		buf_adds(&b, "],\"v\":[");
		for (size_t c = 0; c < e->ser.ncols; c++) {
			buf_adds(&b, c ? ",[" : "[");
			for (size_t i = 0; i < n; i++) {
				if (i)
					buf_addc(&b, ',');
				json_num(&b, v[i * e->ser.ncols + c]);
			}
			buf_addc(&b, ']');
		}
		buf_adds(&b, "]}");
		e->at.rows = from + n;
		event(e, "rows", &b);
		e->last_rows = srv_mono();
	}
	buf_release(&b);
	free(t);
	free(v);
}

static void send_output(struct sse *e, bool err, uint64_t upto)
{
	uint64_t *at = err ? &e->at.err : &e->at.out;
	size_t n = upto - *at > MAX_OUTPUT_PER_EVENT ? MAX_OUTPUT_PER_EVENT : (size_t)(upto - *at);
	char *path = xasprintf("%s/%s", e->dir, err ? "stderr.log" : "stdout.log");
	FILE *f = fopen(path, "re");
	char *text = xmalloc(n + 1);
	size_t got = 0;
	struct buf b = BUF_INIT;

	if (f && fseeko(f, (off_t)*at, SEEK_SET) == 0)
		got = fread(text, 1, n, f);
	if (f)
		fclose(f);
	free(path);
	if (got) {
		buf_addf(&b,
			 "{\"stream\":\"%s\",\"from\":%llu,\"text\":", err ? "stderr" : "stdout",
			 (unsigned long long)*at);
		buf_add_json_str(&b, text, got);
		buf_addc(&b, '}');
		*at += got;
		event(e, "output", &b);
	}
	buf_release(&b);
	free(text);
}

/* Adds to e->pending what is new; true when something was added. */
static bool collect(struct sse *e)
{
	struct have h;
	size_t before = e->pending.len;

	have(e, &h);
	if (h.rows > e->at.rows && e->ser_open)
		send_rows(e, h.rows);
	if (h.out > e->at.out)
		send_output(e, false, h.out);
	if (h.err > e->at.err)
		send_output(e, true, h.err);
	if (h.hot_json) {
		struct buf b = BUF_INIT;

		e->at.hot = h.hot;
		buf_adds(&b, h.hot_json);
		event(e, "hot", &b);
		buf_release(&b);
		free(h.hot_json);
	}
	return e->pending.len > before;
}

static void wait_live(struct sse *e, double seconds)
{
	struct timespec ts;
	double whole;

	clock_gettime(CLOCK_REALTIME, &ts);
	double frac = modf(seconds, &whole);

	ts.tv_sec += (time_t)whole;
	ts.tv_nsec += (long)(frac * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	if (!e->live) {
		nanosleep(&(struct timespec){(time_t)whole, (long)(frac * 1e9)}, NULL);
		return;
	}
	pthread_mutex_lock(&e->live->mu);
	/* Woken by any change; the caller looks at what it was. */
	pthread_cond_timedwait(&e->live->cv, &e->live->mu, &ts);
	pthread_mutex_unlock(&e->live->mu);
}

/* Whether the live entry says the run is over (every file complete). */
static bool live_over(struct sse *e)
{
	bool over;

	if (!e->live)
		return false;
	pthread_mutex_lock(&e->live->mu);
	over = e->live->over;
	pthread_mutex_unlock(&e->live->mu);
	return over;
}

/* Produces the next messages into e->pending; false at the end. */
static bool produce(struct sse *e)
{
	double idle_since = srv_mono();

	for (;;) {
		if (e->srv->stopping || e->ended)
			return false;
		if (live_over(e)) {
			live_put(e->live);
			e->live = NULL;
			state(e, false);
		} else if (!e->live || srv_mono() - e->last_db > 1) {
			state(e, false); /* the queue moved, another server's run */
		}
		/* Rows close behind the last ones wait a moment to go together:
		 * until the gap passes, whatever wakes us meanwhile (a run at
		 * 1 ms would otherwise send a message for nearly every row). */
		double gap = srv_mono() - e->last_rows;

		while (e->live && gap < SEND_GAP_MS / 1000.0 && !e->srv->stopping) {
			wait_live(e, SEND_GAP_MS / 1000.0 - gap);
			gap = srv_mono() - e->last_rows;
		}
		if (collect(e))
			return true;
		if (e->over && !e->live) {
			struct buf b = BUF_INIT;

			buf_adds(&b, "{}");
			event(e, "end", &b);
			buf_release(&b);
			e->ended = true;
			return true;
		}
		if (e->pending.len)
			return true;
		if (srv_mono() - idle_since > KEEPALIVE_S) {
			buf_adds(&e->pending, ": keep-alive\n\n");
			return true;
		}
		wait_live(e, e->live ? 1.0 : 0.25);
	}
}

static ssize_t sse_read(void *arg, char *out, size_t max)
{
	struct sse *e = arg;
	size_t n;

	if (e->off == e->pending.len) {
		buf_reset(&e->pending);
		e->off = 0;
		if (!produce(e) && !e->pending.len)
			return -1;
	}
	n = e->pending.len - e->off < max ? e->pending.len - e->off : max;
	memcpy(out, e->pending.data + e->off, n);
	e->off += n;
	return (ssize_t)n;
}

void sse_open(struct serve *s, const struct req *r, const struct srv_run *run, struct resp *out)
{
	struct sse *e = xcalloc(1, sizeof(*e));
	const char *from = r->last_event_id ? r->last_event_id : req_param(r, "from");

	e->srv = s;
	snprintf(e->id, sizeof(e->id), "%s", run->id);
	snprintf(e->tool, sizeof(e->tool), "%s", run->tool);
	e->dir = srv_run_dir(s, run->id);
	e->live = live_get(&s->live, run->id);
	req_cursor(from, &e->at);
	open_series(e);
	/* A reconnecting browser asks again for the retry delay it knows. */
	buf_adds(&e->pending, "retry: 1000\n\n");
	state(e, true);
	out->status = 200;
	out->ctype = "text/event-stream";
	out->sse = true;
	out->streaming = true;
	out->stream = (struct resp_stream){sse_read, sse_free, e};
}
