/* Routing, static files, sessions, events, info (api.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "perf/perf.h"
#include "serve/api.h"
#include "serve/assets.h"
#include "serve/auth.h"
#include "serve/util.h"
#include "util/error.h"
#include "util/xalloc.h"

void json_num(struct buf *b, double v)
{
	if (isfinite(v))
		buf_addf(b, "%.10g", v);
	else
		buf_adds(b, "null");
}

void api_fail(struct resp *out, int code)
{
	int status = code == ERR_NOTFOUND			? 404
		     : code == ERR_PARSE || code == ERR_INVALID ? 400
		     : code == ERR_CONFLICT			? 409
								: 500;

	resp_error(out, status, *err_msg() ? err_msg() : "internal error");
}

static void not_allowed(struct resp *out)
{
	resp_error(out, 405, "method not allowed here");
}

/* ---- static files ---- */

static const struct serve_asset *asset(const char *name)
{
	for (size_t i = 0; i < serve_assets_count; i++)
		if (strcmp(serve_assets[i].name, name) == 0)
			return &serve_assets[i];
	return NULL;
}

static void send_asset(const struct serve_asset *a, struct resp *out)
{
	const char *dot = strrchr(a->name, '.');

	out->status = 200;
	out->ctype = !dot			 ? "application/octet-stream"
		     : strcmp(dot, ".js") == 0	 ? "text/javascript; charset=utf-8"
		     : strcmp(dot, ".css") == 0	 ? "text/css; charset=utf-8"
		     : strcmp(dot, ".html") == 0 ? "text/html; charset=utf-8"
						 : "application/octet-stream";
	out->html = strcmp(a->name, "index.html") == 0;
	buf_add(&out->body, a->data, a->len);
}

/* The page's own addresses: /, /s/ID, /s/ID/r/RUN, /plot/RUN, and the
 * project's pages under /p/ when the server shows one. */
static bool page_route(const struct serve *s, const struct req *r)
{
	if (r->nsegs == 0)
		return true;
	if (strcmp(r->segs[0], "p") == 0)
		return s->proj != NULL;
	if (strcmp(r->segs[0], "s") == 0 && r->nsegs >= 2 && srv_is_uuid(r->segs[1]))
		return r->nsegs == 2 ||
		       (r->nsegs == 4 && strcmp(r->segs[2], "r") == 0 && srv_is_uuid(r->segs[3]));
	return strcmp(r->segs[0], "plot") == 0 && r->nsegs == 2 && srv_is_uuid(r->segs[1]);
}

static void page(struct serve *s, const struct req *r, struct resp *out)
{
	const struct serve_asset *a;

	if (r->nsegs == 1 && strcmp(r->segs[0], "favicon.ico") == 0) {
		out->status = 204; /* none: but no error in the console either */
		return;
	}
	if (r->nsegs == 2 && strcmp(r->segs[0], "assets") == 0 && (a = asset(r->segs[1]))) {
		send_asset(a, out);
		return;
	}
	if (!page_route(s, r) || !(a = asset("index.html"))) {
		resp_error_page(out, 404, "There is no such page here.");
		return;
	}
	/* The address veles serve printed (?token=...): keep the token in a
	 * cookie and show the address without it. */
	if (req_param(r, "token")) {
		char name[48];

		if (!auth_token_ok(s, r)) {
			resp_error_page(out, 401, "That token is not this server's.");
			return;
		}
		auth_cookie_name(s, name, sizeof(name));
		out->status = 303;
		out->set_cookie =
			xasprintf("%s=%s; Path=/; HttpOnly; SameSite=Strict", name, s->token);
		out->location = xstrdup(r->path);
		return;
	}
	send_asset(a, out);
}

/* ---- events ---- */

static void events_json(struct serve *s, const char *q, struct buf *b)
{
	struct perf_event_info *v;
	size_t n;

	if (perf_event_list(q, &v, &n) < 0) {
		buf_adds(b, "[]");
		return;
	}
	buf_adds(b, "[");
	for (size_t i = 0; i < n; i++) {
		buf_adds(b, i ? ",\n{\"name\":" : "{\"name\":");
		buf_add_json_str(b, v[i].name, strlen(v[i].name));
		buf_addf(b, ",\"kind\":\"%s\",\"description\":", perf_kind_name(v[i].kind));
		buf_add_json_str(b, v[i].desc, strlen(v[i].desc));
		buf_addf(b, ",\"supported\":%s}", v[i].supported ? "true" : "false");
	}
	buf_adds(b, "]");
	perf_event_list_free(v, n);
	(void)s;
}

static void add_use(void *arg, const char *event, int64_t uses)
{
	struct buf *b = arg;

	buf_adds(b, b->data[b->len - 1] == '{' ? "" : ",");
	buf_add_json_str(b, event, strlen(event));
	buf_addf(b, ":%lld", (long long)uses);
}

/* GET /api/events[?q=TEXT][&session=ID]: the list of `veles list` (made
 * once, then kept), and how often this session's runs used each. */
static void events(struct serve *s, const struct req *r, struct resp *out)
{
	const char *q = req_param(r, "q"), *ses = req_param(r, "session");
	struct buf b = BUF_INIT;

	if (ses && !srv_is_uuid(ses)) {
		resp_error(out, 400, "session must be a session's id");
		return;
	}
	buf_adds(&b, "{\"events\":");
	pthread_mutex_lock(&s->perf_mu);
	if (q && *q) {
		events_json(s, q, &b);
	} else {
		if (!s->events_json) {
			struct buf e = BUF_INIT;

			events_json(s, NULL, &e);
			s->events_json = buf_detach(&e, NULL);
		}
		buf_adds(&b, s->events_json);
	}
	pthread_mutex_unlock(&s->perf_mu);
	buf_adds(&b, ",\"uses\":{");
	if (ses && model_event_uses(s->db, ses, add_use, &b) < 0) {
		buf_release(&b);
		api_fail(out, ERR_IO);
		return;
	}
	buf_adds(&b, "}}\n");
	resp_json(out, 200, &b);
}

/* ---- sessions ---- */

static void session_json(const struct srv_session *ses, struct buf *b)
{
	buf_addf(b, "{\"id\":\"%s\",\"title\":", ses->id);
	buf_add_json_str(b, ses->title, strlen(ses->title));
	buf_addf(b, ",\"created\":%lld,\"runs\":%lld}", (long long)ses->created,
		 (long long)ses->runs);
}

static void sessions(struct serve *s, const struct req *r, struct resp *out)
{
	struct buf b = BUF_INIT;

	if (req_is(r, "GET")) {
		struct srv_session *v;
		size_t n;

		if (model_sessions_list(s->db, req_param(r, "q"), &v, &n) < 0) {
			api_fail(out, ERR_IO);
			return;
		}
		buf_adds(&b, "{\"sessions\":[");
		for (size_t i = 0; i < n; i++) {
			if (i)
				buf_adds(&b, ",\n");
			session_json(&v[i], &b);
		}
		buf_adds(&b, "]}\n");
		srv_sessions_free(v, n);
		resp_json(out, 200, &b);
	} else if (req_is(r, "POST")) {
		struct srv_session ses;
		char *title;
		int ret = session_req_parse(r->body, r->body_len, &title);

		if (ret == 0)
			ret = model_session_create(s->db, title, &ses);
		free(title);
		if (ret < 0) {
			api_fail(out, ret);
			return;
		}
		srv_log(s, "session %s created", ses.id);
		session_json(&ses, &b);
		buf_addc(&b, '\n');
		srv_session_clear(&ses);
		resp_json(out, 201, &b);
	} else {
		not_allowed(out);
	}
}

static int remove_session(struct serve *s, const char *id)
{
	struct srv_run *v;
	size_t n;
	int ret = model_runs_list(s->db, id, NULL, &v, &n);

	for (size_t i = 0; i < n && ret == 0; i++)
		ret = api_run_remove(s, v[i].id);
	srv_runs_free(v, n);
	if (ret == 0)
		ret = model_session_delete(s->db, id);
	if (ret == 0)
		srv_log(s, "session %s deleted", id);
	return ret;
}

static void session(struct serve *s, const struct req *r, const char *id, const char *what,
		    struct resp *out)
{
	struct srv_session ses;
	struct buf b = BUF_INIT;
	int ret = model_session_get(s->db, id, &ses);

	if (ret < 0) {
		api_fail(out, ret);
		return;
	}
	if (what && strcmp(what, "hdf5") == 0 && req_is(r, "GET")) {
		api_hdf5_session(s, &ses, out);
	} else if (what) {
		resp_error(out, 404, "no such part of a session");
	} else if (req_is(r, "GET")) {
		struct srv_run *v;
		size_t n;

		session_json(&ses, &b);
		b.len--; /* the closing brace: the runs go inside */
		buf_adds(&b, ",\"run_list\":[");
		if (model_runs_list(s->db, id, NULL, &v, &n) == 0) {
			for (size_t i = 0; i < n; i++) {
				if (i)
					buf_adds(&b, ",\n");
				api_run_json(s, &v[i], &b);
			}
			srv_runs_free(v, n);
		}
		buf_adds(&b, "]}\n");
		resp_json(out, 200, &b);
	} else if (req_is(r, "DELETE")) {
		if ((ret = remove_session(s, id)) < 0)
			api_fail(out, ret);
		else
			out->status = 204;
	} else {
		not_allowed(out);
	}
	srv_session_clear(&ses);
}

static void info(struct serve *s, struct resp *out)
{
	struct buf b = BUF_INIT;
	char host[256] = "";

	gethostname(host, sizeof(host) - 1);
	buf_addf(&b, "{\"version\":\"%s\",\"host\":", VELES_VERSION);
	buf_add_json_str(&b, host, strlen(host));
	buf_addf(&b, ",\"database\":\"%s\",\"token\":%s,\"pid\":%d}\n", db_backend_name(s->db),
		 s->token_on ? "true" : "false", (int)getpid());
	resp_json(out, 200, &b);
}

static void api(struct serve *s, const struct req *r, struct resp *out)
{
	const char *part = r->nsegs > 1 ? r->segs[1] : "";
	const char *id = r->nsegs > 2 ? r->segs[2] : NULL;
	const char *what = r->nsegs > 3 ? r->segs[3] : NULL;

	if (strcmp(part, "project") == 0) {
		api_project(s, r, out);
	} else if (r->nsegs > 4 || (id && !srv_is_uuid(id))) {
		resp_error(out, 404, "no such API address");
	} else if (strcmp(part, "events") == 0 && !id) {
		if (req_is(r, "GET"))
			events(s, r, out);
		else
			not_allowed(out);
	} else if (strcmp(part, "sessions") == 0) {
		if (id)
			session(s, r, id, what, out);
		else
			sessions(s, r, out);
	} else if (strcmp(part, "runs") == 0) {
		if (id)
			api_run(s, r, id, what, out);
		else
			api_runs(s, r, out);
	} else if (strcmp(part, "queue") == 0 && !id) {
		if (req_is(r, "GET"))
			api_queue(s, r, out);
		else
			not_allowed(out);
	} else if (strcmp(part, "info") == 0 && !id) {
		info(s, out);
	} else {
		resp_error(out, 404, "no such API address");
	}
}

void api_dispatch(struct serve *s, const struct req *r, struct resp *out)
{
	bool is_api = r->nsegs && strcmp(r->segs[0], "api") == 0;

	err_clear();
	if (auth_check(s, r, is_api, out) < 0)
		return;
	if (is_api && s->read_only && !req_is(r, "GET")) {
		resp_error(out, 403, "this server is read-only (--read-only)");
		return;
	}
	if (is_api) {
		api(s, r, out);
		return;
	}
	if (!req_is(r, "GET")) {
		resp_error_page(out, 405, "Pages are only read here.");
		return;
	}
	page(s, r, out);
}
