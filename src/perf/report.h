/*
 * Where a recording's samples fell: one entry per command, object file and
 * function with its period and samples, its most frequent callers, and
 * the samples' distinct stacks ("folded", the input of flame graphs).
 * Fed one sample at a time, so a live view can keep a running table.
 */
#ifndef PERF_REPORT_H
#define PERF_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perf/session.h"
#include "util/strmap.h"

enum { PERF_REPORT_CALLER_DEPTH = 4 };

struct perf_report_entry {
	char *comm, *dso, *sym; /* owned */
	bool kernel;
	uint64_t period, samples;
	struct strmap callers; /* "a <- b <- c" -> index into caller_period */
	uint64_t *caller_period;
	size_t caller_cap;
};

struct perf_report {
	struct strmap keys;
	struct perf_report_entry *v;
	size_t n, cap;
	uint64_t total, samples;
	bool sorted; /* v is by period; keys no longer index it */
};

struct perf_report_caller {
	const char *chain;
	uint64_t period;
};

/* Adds one sample (its function, and its callers when it has a chain). */
void perf_report_add(struct perf_report *r, const struct perf_sample *smp);
/* Sorts the entries by period, largest first; no sample may follow. */
void perf_report_sort(struct perf_report *r);
/* The entries' indexes by period, largest first, at most @max of them
 * (the report stays open to more samples); caller frees. */
size_t *perf_report_top(const struct perf_report *r, size_t max, size_t *n);
/* An entry's callers, most frequent first; *@n of them; caller frees. */
struct perf_report_caller *perf_report_callers(const struct perf_report_entry *e, size_t *n);
double perf_report_pct(uint64_t part, uint64_t whole);
void perf_report_free(struct perf_report *r);

/* Distinct stacks "comm;outermost;...;innermost" and their samples. */
struct perf_folded {
	struct strmap stacks;
	uint64_t *count;
	size_t cap;
};

void perf_folded_add(struct perf_folded *f, const struct perf_sample *smp);
/* The stacks in text order (pointers into @f); caller frees the array. */
const char **perf_folded_sorted(const struct perf_folded *f, size_t *n);
uint64_t perf_folded_count(const struct perf_folded *f, const char *stack);
void perf_folded_free(struct perf_folded *f);

#endif
