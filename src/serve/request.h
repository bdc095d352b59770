/*
 * Every request the server reads, parsed in one place from what came off
 * the wire: the method, the raw request target (percent-encoded path and
 * query), the headers that matter, the body. Both the HTTP glue (http.c)
 * and a fuzzer call req_parse and the body parsers; nothing here touches
 * the server's state.
 */
#ifndef SERVE_REQUEST_H
#define SERVE_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	REQ_MAX_URI = 4096,
	REQ_MAX_SEGS = 8,
	REQ_MAX_PARAMS = 32,
	REQ_MAX_BODY = 256 * 1024,
	REQ_MAX_SCREEN = 64 * 1024, /* a run's saved screen state */
};

struct req_header {
	const char *name, *value;
};

struct req_param {
	char *name, *value;
};

struct req {
	char method[8];
	char *path; /* decoded */
	char *segs[REQ_MAX_SEGS];
	size_t nsegs;
	struct req_param params[REQ_MAX_PARAMS];
	size_t nparams;
	/* headers (NULL when absent) */
	char *host, *origin, *csrf, *last_event_id, *content_type, *cookies;
	char *token; /* from Authorization, X-Veles-Token or ?token= */
	const char *body;
	size_t body_len;
};

/*
 * Parses a request; ERR_PARSE with a message when it is malformed (a bad
 * escape, a NUL, a path or query too long or with too many parts). The
 * body is not copied: it must outlive @r.
 */
int req_parse(struct req *r, const char *method, const char *uri, const struct req_header *hdrs,
	      size_t nhdrs, const char *body, size_t len);
void req_free(struct req *r);
/* The value of cookie @name (caller frees), or NULL. */
char *req_cookie(const struct req *r, const char *name);
/* @r's method is @method (HEAD counts as GET: it is answered the same). */
bool req_is(const struct req *r, const char *method);
/* A query parameter's decoded value, or NULL. */
const char *req_param(const struct req *r, const char *name);
/* A query parameter as a number in [@lo, @hi]; @def when absent; false
 * (with a message) when it is not one. */
bool req_param_double(const struct req *r, const char *name, double lo, double hi, double def,
		      double *out);
bool req_param_int(const struct req *r, const char *name, long long lo, long long hi, long long def,
		   long long *out);
/* Whether the method changes state (anything but GET and HEAD). */
bool req_writes(const struct req *r);

/* The SSE cursors of Last-Event-ID "ROWS.OUT.ERR.HOT" (all 0 when absent
 * or malformed: the stream starts over). */
struct req_cursor {
	uint64_t rows, out, err, hot;
};
void req_cursor(const char *last_event_id, struct req_cursor *c);

/* A run as POST /api/runs asks for it. */
struct run_req {
	char *session, *tool, *events, *command, *env, *screen;
	bool streaming, callgraph;
	long long interval_ms, freq, pid, tid;
};

/* Parses and checks the JSON body of POST /api/runs (ERR_PARSE saying
 * what is wrong); the events' names are not looked up here. */
int run_req_parse(const char *body, size_t len, struct run_req *out);
void run_req_free(struct run_req *r);
/* The title of POST /api/sessions ({"title": "..."}). */
int session_req_parse(const char *body, size_t len, char **title);

#endif
