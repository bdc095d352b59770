/*
 * The ratios perf prints after '#' in `perf stat`: CPUs utilized from the
 * clocks, events per second, IPC, GHz, miss and idle rates. Each needs its
 * partner event counted in the same span (cycles for IPC, ...).
 */
#ifndef PERF_METRICS_H
#define PERF_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "perf/counters.h"

/* One event's count over a span; not counted: unsupported or never ran. */
struct perf_count {
	double value; /* scaled; nanoseconds for the clocks */
	bool counted;
};

struct perf_metric {
	double value;
	const char *unit; /* NULL: no ratio for this event */
};

/* task-clock or cpu-clock: counts nanoseconds, printed as msec. */
bool perf_is_clock(const struct perf_counter *c);
/* The ratio for event @i of @cs, given every event's count (@counts[k]
 * for cs->v[k]) over a span of @span_ns wall time. */
struct perf_metric perf_metric(const struct perf_counters *cs, const struct perf_count *counts,
			       size_t i, double span_ns);

#endif
