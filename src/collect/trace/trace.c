/*
 * veles collect trace: runs a program and records how long each call of
 * its functions took, through the trace runtime preloaded into a program
 * built with `veles cflags trace` (--instrumented), or through uprobes on
 * the unmodified binary (--dynamic, trace-dynamic.c). This file holds the
 * collector's phases; its options are parsed in trace-opts.c, the end of
 * the run judged in trace-outcome.c (docs/collect-trace.md).
 */
#include <stdio.h>
#include <stdlib.h>

#include "collect/collector.h"
#include "collect/trace/trace-dynamic.h"
#include "collect/trace/trace-state.h"
#include "profile/profile.h"
#include "util/common.h"

static int trace_before(struct collect_ctx *c)
{
	struct trace_state *st = c->state;
	int ret = st->watchdog ? trace_open_watchdog(c, st) : 0;

	if (ret < 0 || (st->dynamic && !st->keep))
		return ret;
	if (!st->dynamic) {
		st->runtime = trace_runtime_path();
		trace_watch(&st->o, "runtime: %s", st->runtime ? st->runtime : "(not found)");
	}
	if (!st->dynamic && !st->runtime)
		return err_set(ERR_NOTFOUND, "collect trace: the trace runtime libveles-trace.so "
					     "is not installed (set VELES_TRACE_LIB to its path)");
	ret = tmpdir_make("trace", &st->tmp);
	if (ret < 0)
		return err_prefix(ret, "collect trace");
	st->dir = xstrdup(st->tmp.path);
	trace_watch(&st->o, "temporary directory: %s", st->dir);
	return 0;
}

/* The instrumented run: the runtime's files read back into calls. */
static int collect_instrumented(struct collect_ctx *c, struct trace_state *st)
{
	int ret = st->o.nsizes
			  ? trace_size_env(&st->o, c->argv, c->env->cwd, &st->syms, &st->size_env)
			  : 0;

	if (ret == 0)
		ret = trace_run_instrumented(c, st);
	if (ret == 0 && !spawn_interrupted())
		ret = trace_read_dir(st->dir, &st->data);
	if (ret == 0)
		trace_calibrate_killed(&st->data);
	if (ret == 0 && !spawn_interrupted())
		ret = trace_check_read(st, c->argv[0]);
	return ret;
}

static int trace_collect(struct collect_ctx *c)
{
	struct trace_state *st = c->state;
	int ret;

	if (st->dynamic) {
		ret = trace_dynamic_run(c, &st->o, &st->syms, &st->data, &st->run);
		c->last_status = st->run.status;
	} else {
		ret = collect_instrumented(c, st);
	}
	trace_watch(&st->o, "command ended (status %d): %s; %zu calls in %zu processes",
		    st->run.status, ret < 0 ? err_msg() : "ok", st->data.ncalls, st->data.nprocs);
	if (ret < 0 || spawn_interrupted())
		return ret;
	if (st->dynamic && st->keep)
		ret = trace_write_calls(st);
	if (ret < 0)
		return ret;
	ret = trace_check_calls(c, st);
	if (ret < 0)
		return ret;
	c->profile = trace_build_profile(&st->data, &st->o, &st->syms, c->argv[0]);
	if (c->profile)
		trace_note_exit(c->profile, st->run.status);
	trace_watch(&st->o, "profile built: %zu resources",
		    c->profile ? profile_nres(c->profile) : 0);
	return c->profile ? 0 : ERR_INVALID;
}

/* ---- after the run ---- */

static void trace_summary(struct collect_ctx *c, struct trace_state *st)
{
	const struct trace_data *d = &st->data;
	size_t nthreads = 0;

	/* Calls come thread by thread: count the changes. */
	for (size_t i = 0; i < d->ncalls; i++)
		nthreads += i == 0 || d->calls[i].tid != d->calls[i - 1].tid ||
			    d->calls[i].pid != d->calls[i - 1].pid;
	if (d->aggregate) {
		collect_say(c, COLLECT_MSG_OUT,
			    "Traced %zu functions in %zu threads of %zu processes (sums only)\n",
			    profile_nres(c->profile), nthreads, d->nprocs);
		return;
	}
	collect_say(c, COLLECT_MSG_OUT,
		    "Traced %zu calls in %zu threads of %zu processes; kept %zu\n", d->ncalls,
		    nthreads, d->nprocs, profile_nres(c->profile));
	if (d->bytes)
		collect_say(c, COLLECT_MSG_OUT, "  %s: %.1f bytes per call\n",
			    st->dynamic ? "Probe samples" : "Records",
			    (double)d->bytes / (double)d->ncalls);
	for (size_t i = 0; i < d->nprocs; i++)
		if (d->procs[i].lost)
			collect_say(c, COLLECT_MSG_ERR,
				    "Warning: process %d lost %lu calls that signal handlers made "
				    "while the runtime was defining a function",
				    d->procs[i].pid, d->procs[i].lost);
	if (d->nfull)
		collect_say(c, COLLECT_MSG_ERR,
			    "Warning: %zu thread%s filled the room for records (disk or address "
			    "space); the calls they made after are missing",
			    d->nfull, d->nfull == 1 ? "" : "s");
}

static int trace_after(struct collect_ctx *c)
{
	struct trace_state *st = c->state;
	int ret = 0;

	if (!c->quiet)
		trace_summary(c, st);
	trace_warn_status(c, &st->run);
	if (st->o.watch) {
		trace_watch(&st->o, "done");
		fclose(st->o.watch);
		st->o.watch = NULL;
		if (!c->quiet)
			collect_say(c, COLLECT_MSG_OUT, "  Watchdog log: %s\n", st->watch_path);
	}
	if (st->zip)
		ret = trace_zip_dir(st->dir);
	if (st->keep && !c->quiet)
		collect_say(c, COLLECT_MSG_OUT, "  Raw records kept in %s\n", st->dir);
	/* -np: collected and summarised; nothing to write. */
	if (ret == 0 && st->no_profile) {
		profile_free(c->profile);
		c->profile = NULL;
	}
	return ret;
}

static void trace_release(struct collect_ctx *c)
{
	struct trace_state *st = c->state;

	if (!st)
		return;
	if (st->keep)
		tmpdir_keep(&st->tmp);
	tmpdir_remove(&st->tmp);
	trace_opts_release(&st->o);
	if (st->o.watch)
		fclose(st->o.watch);
	free(st->watch_path);
	free(st->dir);
	free(st->runtime);
	free(st->size_env);
	trace_data_free(&st->data);
	trace_sym_free(&st->syms);
	free(st);
	c->state = NULL;
}

const struct collector trace_collector = {
	.name = "trace",
	.summary = "time of every call of a program's functions, and between its USDT probes",
	.parse = trace_parse,
	.before = trace_before,
	.collect = trace_collect,
	.after = trace_after,
	.release = trace_release,
};
