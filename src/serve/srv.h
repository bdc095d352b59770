/* The server's shared state, for its own modules (not for front ends). */
#ifndef SERVE_SRV_H
#define SERVE_SRV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "serve/db.h"
#include "serve/live.h"
#include "serve/serve.h"
#include "serve/store_index.h"

struct exec;
struct project;
struct MHD_Daemon;

struct serve {
	struct db *db;
	char *data_dir; /* DATA: runs/ is inside; downloads never leave it */
	char *runs_dir; /* DATA/runs */
	char token[65];
	bool token_on;
	bool loopback; /* listening on a loopback address only */
	char *host;    /* as given, for the Host check and the URL */
	int port;
	char *url;
	struct live_registry live;
	struct exec *exec;
	char *runner;	  /* its name in the queue; NULL: it executes no run */
	int64_t lease_ms; /* a claim's lease, renewed at a third of it */
	struct MHD_Daemon *mhd;
	volatile int stopping;
	/* Naming events sets libpfm4 and tracefs up on first use, which is not
	 * thread-safe: every lookup and listing takes this lock. It also
	 * guards the events of `veles list` as JSON, made on first use. */
	pthread_mutex_t perf_mu;
	char *events_json;
	/* The project the pages show (serve_opts.project_dir), or NULL.
	 * libgit2 objects are not shared between threads: hold proj_mu
	 * while using it. */
	struct project *proj;
	bool read_only;
	pthread_mutex_t proj_mu;
	/* What the store index was last made from, and what that did
	 * (store_index.h); under proj_mu. */
	char *ix_stamp;
	struct store_index_stats ix_last;
	int64_t ix_due;	 /* versions whose verdict is still to make */
	bool ix_busy;	 /* the verdicts' thread works on them */
	bool ix_started; /* ix_thread is to be joined */
	pthread_t ix_thread;
	int64_t ix_gen;	 /* moves on whenever points change */
	int64_t ix_vgen; /* whenever verdicts are written (atomic) */
	struct store_index_cached ix_cache[STORE_INDEX_CACHED];
	size_t ix_cache_next; /* the entry to reuse next */
	void (*log)(void *arg, const char *line);
	void *log_arg;
	void (*run_ended)(void *arg, const char *id, const char *state);
	void *run_ended_arg;
};

/* A line in the server's log (printf-style). */
void srv_log(struct serve *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* DATA/runs/ID (caller frees); @id must be a UUID. */
char *srv_run_dir(const struct serve *s, const char *id);

#endif
