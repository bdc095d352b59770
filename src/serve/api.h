/*
 * The server's answers: one entry point from a parsed request to a
 * response (api.c routes), the handlers of each part of the API, and the
 * live stream (sse.c). Documented in docs/serve.md.
 */
#ifndef SERVE_API_H
#define SERVE_API_H

#include "serve/model.h"
#include "serve/request.h"
#include "serve/resp.h"
#include "serve/srv.h"

/* Answers @r (never fails: errors become error responses). */
void api_dispatch(struct serve *s, const struct req *r, struct resp *out);

/* api_runs.c */
void api_runs(struct serve *s, const struct req *r, struct resp *out);
void api_run(struct serve *s, const struct req *r, const char *id, const char *what,
	     struct resp *out);
void api_queue(struct serve *s, const struct req *r, struct resp *out);
/* A run as JSON (its queue position looked up when queued). */
void api_run_json(struct serve *s, const struct srv_run *run, struct buf *b);
/* Stops and removes a run with its files (409 when it will not stop). */
int api_run_remove(struct serve *s, const char *id);
/* ,"KEY":"V" (null for NULL): a member, after the first, of an object. */
void api_json_str(struct buf *b, const char *key, const char *v);
/* A run's rows and samples as they are now (the live counts while it
 * runs) and its place in the queue (0 unless queued). */
void api_run_progress(struct serve *s, const struct srv_run *run, int64_t *rows, int64_t *samples,
		      int64_t *position);
/* ,"exit_status":..,"error":..,"runner":..: how a run ended, and where it
 * ran (null while unknown). */
void api_run_outcome_json(const struct srv_run *run, struct buf *b);
/* A list of runs (of model_runs_list, oldest first) as "KEY":[...], one a
 * line, each as @json writes it: those @keep accepts (NULL: all), newest
 * first when @newest_first. */
struct api_run_list {
	const char *key;
	bool newest_first;
	bool (*keep)(const struct srv_run *run, const void *arg);
	const void *arg;
	void (*json)(struct serve *s, const struct srv_run *run, struct buf *b);
};
void api_run_list_json(struct serve *s, const struct srv_run *v, size_t n,
		       const struct api_run_list *l, struct buf *b);

/* api_project.c: /api/project/..., the project's store (404 without one) */
void api_project(struct serve *s, const struct req *r, struct resp *out);

/* api_data.c: a finished or running run's data and downloads */
void api_run_data(struct serve *s, const struct req *r, const struct srv_run *run, const char *what,
		  struct resp *out);
/* api_hdf5.c */
void api_hdf5_run(struct serve *s, const struct srv_run *run, struct resp *out);
void api_hdf5_session(struct serve *s, const struct srv_session *ses, struct resp *out);

/* sse.c: GET /api/runs/ID/live */
void sse_open(struct serve *s, const struct req *r, const struct srv_run *run, struct resp *out);

/* Writes a double as JSON (null for NaN and infinities). */
void json_num(struct buf *b, double v);
/* An error from a library call as a response: 404 for ERR_NOTFOUND, 400
 * for ERR_PARSE/ERR_INVALID, 409 for ERR_CONFLICT, else 500. */
void api_fail(struct resp *out, int code);

#endif
