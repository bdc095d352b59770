/* Runs: queueing, listing, reading, cancelling, deleting (api.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf/perf.h"
#include "serve/api.h"
#include "serve/exec.h"
#include "serve/queue.h"
#include "serve/util.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

void api_json_str(struct buf *b, const char *key, const char *v)
{
	buf_addf(b, ",\"%s\":", key);
	if (v)
		buf_add_json_str(b, v, strlen(v));
	else
		buf_adds(b, "null");
}

static void add_events(struct buf *b, const char *events)
{
	const char *p = events;

	buf_adds(b, ",\"events\":[");
	for (bool first = true; *p; first = false) {
		size_t n = strcspn(p, ",");

		if (!first)
			buf_addc(b, ',');
		buf_add_json_str(b, p, n);
		p += n + (p[n] == ',');
	}
	buf_addc(b, ']');
}

void api_run_progress(struct serve *s, const struct srv_run *run, int64_t *rows, int64_t *samples,
		      int64_t *position)
{
	struct live *l = srv_state_final(run->state) ? NULL : live_get(&s->live, run->id);

	*rows = run->rows;
	*samples = run->samples;
	*position = 0;
	if (l) {
		pthread_mutex_lock(&l->mu);
		*rows = (int64_t)l->rows;
		*samples = (int64_t)l->samples;
		pthread_mutex_unlock(&l->mu);
		live_put(l);
	}
	if (strcmp(run->state, "queued") == 0)
		model_run_position(s->db, run->seq, position);
}

void api_run_list_json(struct serve *s, const struct srv_run *v, size_t n,
		       const struct api_run_list *l, struct buf *b)
{
	bool first = true;

	buf_addf(b, "\"%s\":[", l->key);
	for (size_t k = 0; k < n; k++) {
		const struct srv_run *run = &v[l->newest_first ? n - 1 - k : k];

		if (l->keep && !l->keep(run, l->arg))
			continue;
		buf_adds(b, first ? "" : ",\n");
		l->json(s, run, b);
		first = false;
	}
	buf_addc(b, ']');
}

void api_run_outcome_json(const struct srv_run *run, struct buf *b)
{
	if (run->has_exit)
		buf_addf(b, ",\"exit_status\":%lld", (long long)run->exit_status);
	else
		buf_adds(b, ",\"exit_status\":null");
	api_json_str(b, "error", run->error);
	api_json_str(b, "runner", run->runner[0] ? run->runner : NULL);
}

void api_run_json(struct serve *s, const struct srv_run *run, struct buf *b)
{
	int64_t rows, samples, pos;

	api_run_progress(s, run, &rows, &samples, &pos);
	buf_addf(b, "{\"id\":\"%s\",\"session\":\"%s\",\"seq\":%lld", run->id, run->session,
		 (long long)run->seq);
	buf_addf(b, ",\"created\":%lld,\"started\":%lld,\"ended\":%lld", (long long)run->created,
		 (long long)run->started, (long long)run->ended);
	api_json_str(b, "state", run->state);
	api_json_str(b, "tool", run->tool);
	add_events(b, run->events);
	buf_addf(b, ",\"streaming\":%s,\"interval_ms\":%lld,\"freq\":%lld,\"callgraph\":%s",
		 run->streaming ? "true" : "false", (long long)run->interval_ms,
		 (long long)run->freq, run->callgraph ? "true" : "false");
	api_json_str(b, "command", run->command);
	api_json_str(b, "env", run->env);
	buf_addf(b, ",\"pid\":%lld,\"tid\":%lld", (long long)run->pid, (long long)run->tid);
	api_run_outcome_json(run, b);
	buf_addf(b, ",\"attempts\":%lld", (long long)run->attempts);
	buf_addf(b, ",\"rows\":%lld,\"samples\":%lld,\"position\":%lld", (long long)rows,
		 (long long)samples, (long long)pos);
	buf_addf(b, ",\"screen\":%s", run->screen && *run->screen ? run->screen : "{}");
	buf_addf(b,
		 ",\"links\":{\"reload\":\"/s/%s/r/%s\",\"plot\":\"/plot/%s\","
		 "\"live\":\"/api/runs/%s/live\",\"raw\":\"/api/runs/%s/raw\","
		 "\"csv\":\"/api/runs/%s/csv\",\"hdf5\":\"/api/runs/%s/hdf5\"}}",
		 run->session, run->id, run->id, run->id, run->id, run->id, run->id);
}

/* Every event named must be one this machine knows; several sampled
 * together must all be tracepoints (as veles record wants). */
static int check_events(struct serve *s, const struct run_req *rq)
{
	char *list = xstrdup(rq->events), *save = NULL;
	size_t n = 0, tp = 0;
	int ret = 0;

	for (char *e = strtok_r(list, ",", &save); e && ret == 0; e = strtok_r(NULL, ",", &save)) {
		struct perf_event_attr a;

		pthread_mutex_lock(&s->perf_mu);
		ret = perf_event_parse(e, &a);
		pthread_mutex_unlock(&s->perf_mu);
		n++;
		tp += a.type == PERF_TYPE_TRACEPOINT;
	}
	free(list);
	if (ret == ERR_NOTFOUND)
		return ERR_PARSE; /* the message names the event */
	if (ret == 0 && strcmp(rq->tool, "record") == 0 && n > 1 && tp != n)
		ret = err_set(ERR_PARSE, "record samples one event, or several tracepoints");
	return ret;
}

static void create(struct serve *s, const struct req *r, struct resp *out)
{
	struct run_req rq;
	struct srv_run run = {0};
	struct srv_session ses;
	struct buf b = BUF_INIT;
	int ret = run_req_parse(r->body, r->body_len, &rq);

	if (ret == 0 && (ret = model_session_get(s->db, rq.session, &ses)) == 0)
		srv_session_clear(&ses);
	if (ret == 0)
		ret = check_events(s, &rq);
	if (ret < 0) {
		api_fail(out, ret == ERR_NOTFOUND ? ERR_PARSE : ret);
		run_req_free(&rq);
		return;
	}
	snprintf(run.session, sizeof(run.session), "%s", rq.session);
	snprintf(run.tool, sizeof(run.tool), "%s", rq.tool);
	run.events = rq.events;
	run.command = rq.command;
	run.env = rq.env;
	run.screen = rq.screen;
	run.streaming = rq.streaming;
	run.callgraph = rq.callgraph;
	run.interval_ms = rq.interval_ms;
	run.freq = rq.freq;
	run.pid = rq.pid;
	run.tid = rq.tid;
	rq.events = rq.command = rq.env = rq.screen = NULL;
	run_req_free(&rq);
	/* Registered before the worker can see it queued. */
	srv_uuid(run.id);
	live_add(&s->live, run.id);
	if ((ret = model_run_insert(s->db, &run)) < 0) {
		live_finish(&s->live, run.id, "failed");
		api_fail(out, ret);
		srv_run_clear(&run);
		return;
	}
	srv_log(s, "run %s queued: %s %s", run.id, run.tool, run.command);
	exec_wake(s);
	api_run_json(s, &run, &b);
	buf_addc(&b, '\n');
	srv_run_clear(&run);
	resp_json(out, 201, &b);
}

static void list(struct serve *s, const struct req *r, struct resp *out)
{
	const char *ses = req_param(r, "session");
	struct srv_run *v;
	struct buf b = BUF_INIT;
	size_t n;

	if (ses && !srv_is_uuid(ses)) {
		resp_error(out, 400, "session must be a session's id");
		return;
	}
	if (model_runs_list(s->db, ses, req_param(r, "state"), &v, &n) < 0) {
		api_fail(out, ERR_IO);
		return;
	}
	buf_addc(&b, '{');
	api_run_list_json(s, v, n, &(struct api_run_list){.key = "runs", .json = api_run_json}, &b);
	buf_adds(&b, "}\n");
	srv_runs_free(v, n);
	resp_json(out, 200, &b);
}

void api_runs(struct serve *s, const struct req *r, struct resp *out)
{
	if (req_is(r, "GET"))
		list(s, r, out);
	else if (strcmp(r->method, "POST") == 0)
		create(s, r, out);
	else
		resp_error(out, 405, "method not allowed here");
}

/* Waits (a few seconds at most) until run @id no longer runs. */
static bool stopped(struct serve *s, const char *id)
{
	char cur[37];

	for (int i = 0; i < 200; i++) {
		if (!exec_current(s, cur) || strcmp(cur, id) != 0)
			return true;
		usleep(50 * 1000);
	}
	return false;
}

/* Cancels a queued run, or stops the running one (waiting for its end). */
static int cancel(struct serve *s, const char *id)
{
	if (model_run_cancel_queued(s->db, id, srv_now_ms()) == 0) {
		live_finish(&s->live, id, "canceled");
		srv_log(s, "run %s: canceled before it started", id);
		return 0;
	}
	if (exec_cancel(s, id)) {
		if (!stopped(s, id))
			return err_set(ERR_CONFLICT, "run %s does not stop", id);
		return 0;
	}
	/* Running elsewhere (a runner of the same database): its runner
	 * stops it when its lease is no longer its own. */
	if (queue_cancel_running(s->db, id, srv_now_ms()) == 0) {
		live_finish(&s->live, id, "canceled");
		srv_log(s, "run %s: canceled; its runner stops it", id);
	}
	return 0;
}

int api_run_remove(struct serve *s, const char *id)
{
	char *dir;
	int ret = cancel(s, id);

	if (ret < 0)
		return ret;
	if ((ret = model_run_delete(s->db, id)) < 0)
		return ret;
	dir = srv_run_dir(s, id);
	if (path_exists(dir) && rm_rf(dir) < 0)
		srv_log(s, "run %s: cannot remove %s: %s", id, dir, err_msg());
	free(dir);
	srv_log(s, "run %s deleted", id);
	return 0;
}

void api_run(struct serve *s, const struct req *r, const char *id, const char *what,
	     struct resp *out)
{
	struct srv_run run;
	struct buf b = BUF_INIT;
	int ret = model_run_get(s->db, id, &run);

	if (ret < 0) {
		api_fail(out, ret);
		return;
	}
	if (!what && req_is(r, "GET")) {
		api_run_json(s, &run, &b);
		buf_addc(&b, '\n');
		resp_json(out, 200, &b);
	} else if (!what && strcmp(r->method, "DELETE") == 0) {
		if ((ret = api_run_remove(s, id)) < 0)
			api_fail(out, ret);
		else
			out->status = 204;
	} else if (what && strcmp(what, "cancel") == 0) {
		if (strcmp(r->method, "POST") != 0) {
			resp_error(out, 405, "POST to cancel");
		} else if (srv_state_final(run.state)) {
			resp_error(out, 409, "the run is over already");
		} else if ((ret = cancel(s, id)) < 0) {
			api_fail(out, ret);
		} else {
			srv_run_clear(&run);
			model_run_get(s->db, id, &run);
			api_run_json(s, &run, &b);
			buf_addc(&b, '\n');
			resp_json(out, 200, &b);
		}
	} else if (what && strcmp(what, "live") == 0 && strcmp(r->method, "GET") == 0) {
		sse_open(s, r, &run, out);
	} else if (what && req_is(r, "GET")) {
		api_run_data(s, r, &run, what, out);
	} else {
		resp_error(out, what ? 404 : 405,
			   what ? "no such part of a run" : "method not allowed here");
	}
	srv_run_clear(&run);
}

static bool is_queued(const struct srv_run *run, const void *arg)
{
	(void)arg;
	return strcmp(run->state, "queued") == 0;
}

/* GET /api/queue: the running run and the queued ones in order. */
void api_queue(struct serve *s, const struct req *r, struct resp *out)
{
	struct srv_run *v;
	struct buf b = BUF_INIT;
	size_t n;
	bool first = true;
	const struct api_run_list queued = {
		.key = "queued", .keep = is_queued, .json = api_run_json};

	(void)r;
	if (model_runs_list(s->db, NULL, "running,queued", &v, &n) < 0) {
		api_fail(out, ERR_IO);
		return;
	}
	buf_adds(&b, "{\"running\":");
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].state, "running") == 0 && first) {
			api_run_json(s, &v[i], &b);
			first = false;
		}
	if (first)
		buf_adds(&b, "null");
	buf_addc(&b, ',');
	api_run_list_json(s, v, n, &queued, &b);
	buf_adds(&b, "}\n");
	srv_runs_free(v, n);
	resp_json(out, 200, &b);
}
