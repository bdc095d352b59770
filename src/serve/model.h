/*
 * Sessions and runs as the database keeps them (schema.c): creating,
 * reading, searching, queue order, state changes and deletion. Times are
 * milliseconds since the epoch; 0 means "not yet".
 */
#ifndef SERVE_MODEL_H
#define SERVE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "serve/db.h"

enum { SRV_ID_LEN = 36, SRV_RUNNER_LEN = 63 };

struct srv_session {
	char id[SRV_ID_LEN + 1];
	char *title;
	int64_t created;
	int64_t runs; /* how many runs it holds */
};

/* A run's states: queued, running, then done, failed or canceled. */
struct srv_run {
	char id[SRV_ID_LEN + 1];
	char session[SRV_ID_LEN + 1];
	int64_t seq, created, started, ended;
	char state[12];
	char tool[8]; /* stat or record */
	char *events; /* comma-separated */
	bool streaming, callgraph;
	int64_t interval_ms, freq, pid, tid;
	char *command, *env;
	bool has_exit;
	int64_t exit_status;
	char *error;
	int64_t rows, samples;
	char *screen; /* the benchmark screen's state, JSON as the page sent it */
	char runner[SRV_RUNNER_LEN + 1]; /* who runs or ran it ("": none yet) */
	int64_t attempts;		 /* how many times it was claimed */
};

void srv_session_clear(struct srv_session *s);
void srv_run_clear(struct srv_run *r);
void srv_runs_free(struct srv_run *v, size_t n);
void srv_sessions_free(struct srv_session *v, size_t n);
/* Whether a run in @state is over. */
bool srv_state_final(const char *state);

int model_session_create(struct db *db, const char *title, struct srv_session *out);
/* ERR_NOTFOUND when there is none. */
int model_session_get(struct db *db, const char *id, struct srv_session *out);
/* Newest first; @q (or NULL) keeps those whose title or id contains it. */
int model_sessions_list(struct db *db, const char *q, struct srv_session **out, size_t *n);
int model_session_delete(struct db *db, const char *id);

/* Adds @r as queued, after every run there is (r->seq set; r->id made
 * unless set). */
int model_run_insert(struct db *db, struct srv_run *r);
int model_run_get(struct db *db, const char *id, struct srv_run *out);
/* Runs of @session (NULL: all), oldest first; @states (NULL: any) a
 * comma-separated list of states to keep. */
int model_runs_list(struct db *db, const char *session, const char *states, struct srv_run **out,
		    size_t *n);
/* The queued run that comes first; *@found false when none. */
int model_run_next(struct db *db, struct srv_run *out, bool *found);
/* How many queued runs come before @seq. */
int model_run_position(struct db *db, int64_t seq, int64_t *pos);
/* State changes: only from the states they expect (ERR_CONFLICT else); a
 * run starts only while no other runs. */
int model_run_start(struct db *db, const char *id, int64_t now);
int model_run_finish(struct db *db, const struct srv_run *r);
int model_run_cancel_queued(struct db *db, const char *id, int64_t now);
/* Progress while it runs: rows and samples so far. */
int model_run_progress(struct db *db, const char *id, int64_t rows, int64_t samples);
/* Runs left running by a server that stopped: failed, saying so. */
int model_runs_abandoned(struct db *db, int64_t now, size_t *n);
int model_run_delete(struct db *db, const char *id);

/* How often each event was counted in @session's runs. */
int model_event_uses(struct db *db, const char *session,
		     void (*fn)(void *arg, const char *event, int64_t uses), void *arg);

#endif
