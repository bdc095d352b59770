/*
 * What the trace collector's phases share (trace.c) with the modules cut
 * from it: its options (trace-opts.c), how the command ended
 * (trace-outcome.c), the kept records and the watchdog log (trace-keep.c)
 * and the instrumented run (trace-runtime.c). Not for use outside
 * src/collect/trace/.
 */
#ifndef COLLECT_TRACE_STATE_H
#define COLLECT_TRACE_STATE_H

#include <stdbool.h>

#include "collect/trace/trace-read.h"
#include "collect/trace/trace-sym.h"
#include "collect/trace/trace.h"
#include "util/spawn.h"
#include "util/tmpdir.h"

struct collect_ctx;
struct profile;

struct trace_state {
	struct trace_opts o;
	bool instrumented, dynamic, keep, zip, no_profile, sampling_set;
	bool watchdog;
	char *runtime;
	char *size_env;	   /* --size in the instrumented mode: VELES_TRACE_SIZE */
	char *dir;	   /* the runtime's output (or the raw samples), a temporary directory */
	struct tmpdir tmp; /* dir's owner while the collection runs (util/tmpdir.h) */
	char *watch_path;  /* -w: the collection's log (its FILE is o.watch) */
	struct trace_data data;
	struct sym_cache syms;
	struct spawn_result run;
};

/* trace-opts.c: the collector's parse(): a new state in c->state, with
 * the options checked against each other; and what they hold, freed. */
int trace_parse(struct collect_ctx *c, int argc, char **argv);
void trace_opts_release(struct trace_opts *o);

/* trace-runtime.c: runs c->argv with the runtime preloaded (st->runtime)
 * writing to st->dir; st->run is how it ended. */
int trace_run_instrumented(struct collect_ctx *c, struct trace_state *st);

/* trace-outcome.c: what the run left. */
/* The instrumented mode's checks of what it read: a -f function none of
 * the command's objects defines, a --size the build cannot see. */
int trace_check_read(struct trace_state *st, const char *cmd);
/* No call kept: why, as the error (a crash, a timeout, a plain build). */
int trace_check_calls(const struct collect_ctx *c, const struct trace_state *st);
/* header.killed_by when a signal ended the command. */
void trace_note_exit(struct profile *p, int status);
/* The rate of the counter of processes that never reached their exit. */
void trace_calibrate_killed(struct trace_data *d);
/* A warning when the command failed or --timeout stopped it. */
void trace_warn_status(const struct collect_ctx *c, const struct spawn_result *run);

/* trace-keep.c: -w's log, -k's raw calls, -z's compression. */
int trace_open_watchdog(struct collect_ctx *c, struct trace_state *st);
int trace_write_calls(const struct trace_state *st);
int trace_zip_dir(const char *dir);

#endif
