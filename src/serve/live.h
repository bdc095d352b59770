/*
 * What a queued or running run has so far, for the threads that stream it
 * to browsers (sse.c): rows in its series file, bytes of its output, the
 * latest hot-function table, its state. The executor updates it and wakes
 * the readers; a reader sleeps on it. A registry maps run ids to these
 * while the run is not over; a reader holds a reference, so the run may
 * end and leave the registry meanwhile.
 */
#ifndef SERVE_LIVE_H
#define SERVE_LIVE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct live {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char id[37];
	char state[12]; /* queued, running, done, failed, canceled */
	bool over;	/* the state is final and every file complete */
	uint64_t rows;	/* series rows written */
	uint64_t out_bytes, err_bytes;
	char *hot; /* the running hot-function table (JSON), or NULL */
	uint64_t hot_version;
	uint64_t samples; /* record: samples so far */
	int refs;
};

struct live_registry {
	pthread_mutex_t mu;
	struct live **v;
	size_t n, cap;
};

void live_registry_init(struct live_registry *r);
void live_registry_free(struct live_registry *r);
/* Registers a run that is queued (a new entry, one reference held by the
 * registry). */
void live_add(struct live_registry *r, const char *id);
/* A reference to the run's entry, or NULL when it is not registered (over,
 * or never queued by this server). */
struct live *live_get(struct live_registry *r, const char *id);
void live_put(struct live *l);
/* Marks the entry over with @state, wakes every reader and drops it from
 * the registry. */
void live_finish(struct live_registry *r, const char *id, const char *state);
/* Wakes every reader of every run (the server stops; a queue moved). */
void live_wake_all(struct live_registry *r);

/* Changes under the entry's lock that wake its readers. */
void live_set_state(struct live *l, const char *state);
void live_add_rows(struct live *l, uint64_t rows);
void live_add_output(struct live *l, bool err, uint64_t bytes);
/* Takes @json (the hot-function table). */
void live_set_hot(struct live *l, char *json, uint64_t samples);

#endif
