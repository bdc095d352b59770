/*
 * veles stat, split by concern: cmd-stat.c runs the target and the clock,
 * stat-print.c formats counts and derived ratios (text, CSV, JSON),
 * collect/perf/stat_profile.c saves them as a Veles profile.
 */
#ifndef CLI_STAT_H
#define CLI_STAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "collect/perf/pcount.h"
#include "collect/perf/perf_profile.h"
#include "perf/counters.h"

enum stat_format { STAT_TEXT, STAT_CSV, STAT_JSON };

struct stat_out {
	FILE *f;
	enum stat_format fmt;
	const char *sep; /* CSV separator */
	const struct perf_counters *cs;
};

/* The header line(s) before interval output (text only). */
void stat_print_interval_header(const struct stat_out *o);
/*
 * Prints every event's sample: @samples[i] belongs to o->cs->v[i]; @span_ns
 * is the wall time they cover (for CPUs utilised and rates); @t is the
 * interval's end in seconds since the start, or negative for the totals.
 */
void stat_print(const struct stat_out *o, const struct pcount_value *samples, double span_ns,
		double t);

#endif
