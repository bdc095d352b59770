/*
 * Exact per-run metrics of a command we spawn (the time collector's and
 * bisect's): CPU time from the kernel's
 * per-task clock (the task-clock software event, in ns, not sampled at
 * ticks as getrusage's user/sys split is), and instructions:u and cycles:u
 * where the PMU counts them. The events follow each command we start from
 * its exec and its children (perf/counters.h, TARGET_SPAWNED), opened
 * afresh for each run.
 */
#ifndef PERF_RUNCOUNT_H
#define PERF_RUNCOUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "perf/counters.h"

enum perf_runcount_kind { RC_CPU, RC_INSTRUCTIONS, RC_CYCLES, RC_N };

struct perf_runcount {
	struct perf_counters cs[RC_N]; /* one event each, so one may fail alone */
	bool have[RC_N];	       /* the kernel accepted it when probed */
	bool live[RC_N];	       /* open for the run in progress */
};

/* The subtype each counter is recorded as: "cpu", "instructions", "cycles". */
const char *perf_runcount_name(enum perf_runcount_kind k);

/* Finds which counters the kernel allows; one it refuses is left out
 * (have[k] false), never an error. */
void perf_runcount_open(struct perf_runcount *tc);
/* Just before a run: opens the counters. */
void perf_runcount_begin(struct perf_runcount *tc);
/* After the run was reaped: reads and closes them; the run's values (CPU seconds for RC_CPU, counts
 * for the others; NaN for a counter we do not have). */
void perf_runcount_end(struct perf_runcount *tc, double out[RC_N]);
void perf_runcount_close(struct perf_runcount *tc);

#endif
