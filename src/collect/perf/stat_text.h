/*
 * How `veles stat` writes counts (docs/cli/stat.md): perf's layouts (text,
 * CSV with a separator, JSON lines) plus the derived ratios, rendered into
 * a buffer for the front end to write.
 */
#ifndef COLLECT_PERF_STAT_TEXT_H
#define COLLECT_PERF_STAT_TEXT_H

#include <stdbool.h>

#include "collect/perf/pcount.h"

struct buf;
struct perf_counters;
struct rusage;

enum stat_format { STAT_TEXT, STAT_CSV, STAT_JSON };

struct stat_out {
	enum stat_format fmt;
	const char *sep; /* CSV separator */
	const struct perf_counters *cs;
};

/* The header line(s) before interval output (text only). */
void stat_text_interval_header(const struct stat_out *o, struct buf *out);
/*
 * Every event's sample: @samples[i] belongs to o->cs->v[i]; @span_ns is
 * the wall time they cover (for CPUs utilised and rates); @t is the
 * interval's end in seconds since the start, or negative for the totals.
 */
void stat_text(const struct stat_out *o, const struct pcount_value *samples, double span_ns,
	       double t, struct buf *out);
/* The text layout's title before the totals: "Performance counter stats
 * for 'CMD ARGS':", of process @pid (when not 0), or system-wide. */
void stat_text_title(char **argv, int argc, int pid, bool system_wide, struct buf *out);
/* ... and the times after them: elapsed, then user and sys when @ru. */
void stat_text_times(double elapsed, const struct rusage *ru, struct buf *out);

#endif
