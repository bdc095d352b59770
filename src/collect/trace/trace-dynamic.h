/*
 * The dynamic mode of the trace collector: uprobes and uretprobes on the
 * unmodified binary's functions through perf_event_open (the uprobe PMU),
 * one ring buffer per CPU, the samples paired into calls per thread.
 */
#ifndef COLLECT_TRACE_DYNAMIC_H
#define COLLECT_TRACE_DYNAMIC_H

#include "collect/collector.h"

struct trace_opts;
struct trace_data;
struct sym_cache;
struct spawn_result;

/*
 * Runs c->argv with a probe on entry and return of every function of
 * o->rules in the binary and fills @d with the calls (in nanoseconds: the
 * processes have ns_per_tick 1 and the binary as their one object).
 * Errors: a function not in the binary, a binary without symbols, no
 * permission for perf_event_open (naming perf_event_paranoid).
 */
int trace_dynamic_run(struct collect_ctx *c, const struct trace_opts *o, struct sym_cache *syms,
		      struct trace_data *d, struct spawn_result *run);

#endif
