/*
 * Counting events over a target (ptarget.h), the core of `veles stat` and
 * of the server's stat runs: every interval on absolute deadlines, so the
 * intervals do not drift, or once for the whole run. The counts go to
 * callbacks; nothing is printed here.
 */
#ifndef COLLECT_PERF_PCOUNT_H
#define COLLECT_PERF_PCOUNT_H

#include <stdint.h>
#include <time.h>

#include "collect/perf/ptarget.h"
#include "perf/counters.h"

/* One event's count over a span (the whole run, or one interval). */
struct pcount_value {
	double value; /* scaled for multiplexing */
	uint64_t raw, enabled, running;
};

/*
 * The counts of one span: @v[i] belongs to cs->v[i]; @span_ns is the wall
 * time they cover; @t the span's end in seconds since the start.
 */
typedef void (*pcount_fn)(void *arg, const struct perf_counters *cs, const struct pcount_value *v,
			  double span_ns, double t);

struct pcount {
	struct perf_counters cs;
	struct ptarget target;
	unsigned long long interval_ns; /* 0: only the totals */
	struct timespec start;		/* CLOCK_MONOTONIC, at ptarget_start */
	double elapsed;			/* seconds, once pcount_run returned */
};

/* Adds the events of a comma-separated list; ERR_NOTFOUND names a bad one. */
int pcount_events(struct pcount *c, const char *list);
/* Forks the command (held) or finds the threads, and opens the counters. */
int pcount_open(struct pcount *c, const struct ptarget_spec *spec);
/* Lets the command run: the clock starts here. */
int pcount_start(struct pcount *c);
/*
 * Counts until the target ends (or a stop): @fn gets every interval of
 * @interval_ms, or with 0 the whole run once (its @t is then the elapsed
 * time). The command is reaped on return (c->target has its status).
 */
int pcount_run(struct pcount *c, unsigned long interval_ms, pcount_fn fn, void *arg);
void pcount_free(struct pcount *c);

#endif
