/* The server's shared state, for its own modules (not for front ends). */
#ifndef SERVE_SRV_H
#define SERVE_SRV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "serve/db.h"
#include "serve/live.h"
#include "serve/serve.h"

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
