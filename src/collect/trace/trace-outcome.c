/*
 * What a traced run left behind, and what the user must hear of it: a
 * command that crashed or was stopped (header.killed_by, a warning), a
 * run that kept no call (the error says why), a -f or --size the
 * instrumented build cannot satisfy.
 */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "collect/collector.h"
#include "collect/trace/trace-state.h"
#include "profile/profile.h"
#include "util/common.h"

static bool object_has(struct sym_cache *syms, const char *path, const char *name)
{
	const struct sym_file *f = trace_sym_file(syms, path);

	for (size_t i = 0; i < f->nsyms; i++)
		if (trace_name_matches(name, f->syms[i].name, f->syms[i].demangled))
			return true;
	return false;
}

/* --size in the instrumented mode: only the mcount build's hooks see the
 * arguments, so no size at all means a -finstrument-functions build. */
static int check_sizes_read(const struct trace_state *st, const char *cmd)
{
	if (!st->instrumented || !st->o.nsizes)
		return 0;
	for (size_t i = 0; i < st->data.ncalls; i++)
		if (st->data.calls[i].has_size)
			return 0;
	return err_set(ERR_INVALID,
		       "collect trace: '%s' recorded no --size: the instrumented mode reads "
		       "arguments in the mcount build (`veles cflags trace --pg`) only",
		       cmd);
}

/*
 * Instrumented mode: a -f function that none of the objects the command
 * loaded defines is a mistake (a typo would otherwise give an empty
 * profile), as the dynamic mode says before it starts.
 */
static int check_rules_defined(struct trace_state *st, const char *prog)
{
	const struct trace_data *d = &st->data;

	for (size_t r = 0; r < st->o.nrules; r++) {
		bool found = false;

		for (size_t i = 0; !found && i < d->nprocs; i++)
			for (size_t k = 0; !found && k < d->procs[i].nobjs; k++)
				found = object_has(&st->syms, d->procs[i].objs[k].path,
						   st->o.rules[r].func);
		if (!found && d->nprocs)
			return err_set(ERR_INVALID,
				       "collect trace: no function '%s' in %s or the libraries it "
				       "loaded",
				       st->o.rules[r].func, prog);
	}
	return 0;
}

int trace_check_read(struct trace_state *st, const char *cmd)
{
	int ret = check_rules_defined(st, cmd);

	return ret < 0 || spawn_interrupted() ? ret : check_sizes_read(st, cmd);
}

/* The counter's rate of each process that never reached its exit (killed,
 * exec'd): from its start to now, on the same machine. */
void trace_calibrate_killed(struct trace_data *d)
{
#if defined(__x86_64__)
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	trace_calibrate(d, __rdtsc(), (double)now.tv_sec + (double)now.tv_nsec * 1e-9);
#else
	(void)d;
#endif
}

/*
 * No call to keep. Only a program that ran no hook at all (no thread of
 * it made a file) is one the flags did not build; a program that died
 * (or was stopped) first says so, with how it ended.
 */
int trace_check_calls(const struct collect_ctx *c, const struct trace_state *st)
{
	char how[96];

	if (st->data.ncalls && st->data.nprocs)
		return 0;
	spawn_status_str(st->run.status, how, sizeof(how));
	if (st->run.timed_out)
		return err_set(ERR_CHILD,
			       "collect trace: '%s' was stopped by --timeout after %g s before it "
			       "returned from any of the functions traced",
			       c->argv[0], c->timeout);
	if (st->dynamic)
		return err_set(ERR_INVALID,
			       "collect trace: '%s' made no call of the functions or probes named",
			       c->argv[0]);
	if (st->data.nthreads && !(WIFEXITED(st->run.status) && WEXITSTATUS(st->run.status) == 0))
		return err_set(ERR_CHILD,
			       "collect trace: '%s' %s before it returned from any function "
			       "traced",
			       c->argv[0], how);
	if (st->data.nthreads)
		return err_set(ERR_INVALID,
			       "collect trace: '%s' returned from no function traced (nothing "
			       "called -f's functions, or every call was still open at its end)",
			       c->argv[0]);
	return err_set(ERR_INVALID,
		       "collect trace: '%s' recorded no calls: was it built with `veles cflags "
		       "trace`?",
		       c->argv[0]);
}

/* header.killed_by: the signal that ended the command ("SIGSEGV"), so the
 * profile says its calls stop where the program died. */
void trace_note_exit(struct profile *p, int status)
{
	const char *abbrev = WIFSIGNALED(status) ? sigabbrev_np(WTERMSIG(status)) : NULL;
	char *name;

	if (!WIFSIGNALED(status))
		return;
	name = abbrev ? xasprintf("\"SIG%s\"", abbrev) : xasprintf("\"%d\"", WTERMSIG(status));
	p->header_extra =
		xrealloc(p->header_extra, (p->nheader_extra + 1) * sizeof(*p->header_extra));
	p->header_extra[p->nheader_extra++] = (struct kv){xstrdup("killed_by"), name};
}

/* A --timeout is how an endless command ends: a notice, not a failure
 * (as collect memory and monitor keep what came before it). */
void trace_warn_status(const struct collect_ctx *c, const struct spawn_result *run)
{
	char what[96];

	if (WIFEXITED(run->status) && WEXITSTATUS(run->status) == 0)
		return;
	spawn_status_str(run->status, what, sizeof(what));
	if (run->timed_out)
		collect_say(c, COLLECT_MSG_ERR,
			    "Warning: '%s' stopped by --timeout after %g s (%s); the calls it "
			    "finished until then are kept",
			    c->argv[0], c->timeout, what);
	else
		collect_say(c, COLLECT_MSG_ERR, "Warning: '%s' %s", c->argv[0], what);
}
