/*
 * veles serve: the web front end to counting and sampling (docs/serve.md).
 * An HTTP server (libmicrohttpd) with a JSON API under /api/, live data by
 * Server-Sent Events, the browser UI embedded, sessions and runs in a
 * database, runs executed one at a time in the background. The CLI
 * (src/cli/cmd-serve.c) only parses options and waits for a signal.
 */
#ifndef SERVE_SERVE_H
#define SERVE_SERVE_H

#include <stdbool.h>

#define SERVE_DEFAULT_LISTEN "127.0.0.1:8780"

struct serve_opts {
	const char *listen;   /* ADDR:PORT, [IPv6]:PORT (port 0: any free one) */
	const char *db_url;   /* sqlite:PATH, PATH or postgresql://...; NULL:
			       * DATA/serve.db */
	const char *data_dir; /* the runs' files go to DATA/runs/ */
	const char *token;    /* NULL: a new random one (unless no_token) */
	bool no_token;	      /* loopback only: no token asked */
	/* Execute runs from the queue. A server on SQLite always does (one
	 * machine); on PostgreSQL only runners do (queue.h). */
	bool runner;
	const char *runner_name; /* NULL: the host's name */
	int lease_s;		 /* how long a claim holds unrenewed (0: 30 s) */
	bool no_http;		 /* a runner without pages (veles runner) */
	/* Called from the queue's thread after each run executed here ends
	 * (its id and final state); NULL: nothing. */
	void (*run_ended)(void *arg, const char *id, const char *state);
	void *run_ended_arg;
	/* A project (a directory in it) whose versions and profiles the
	 * pages show under /p/ and /api/project/; NULL: none. */
	const char *project_dir;
	/* Pages and API only read: every request that would change something
	 * is refused (403), for sharing. */
	bool read_only;
	/* Where the server's log lines go (NULL: nowhere). */
	void (*log)(void *arg, const char *line);
	void *log_arg;
};

struct serve;

/* Opens the database (migrating it), binds, starts the worker. Runs'
 * commands start in the current directory. */
#define SERVE_DEFAULT_LEASE_S 30
int serve_start(const struct serve_opts *o, struct serve **out);
/* "http://HOST:PORT/" as a browser reaches it (NULL with no_http). */
const char *serve_url(const struct serve *s);
/* Its name as a runner, or NULL when it executes no run. */
const char *serve_runner(const struct serve *s);
/* The token, or NULL without one. */
const char *serve_token(const struct serve *s);
/* Stops the running run (its data kept), closes connections, frees. */
void serve_stop(struct serve *s);

#endif
