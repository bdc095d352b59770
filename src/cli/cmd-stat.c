/* veles stat: count events over a command, a running process or all CPUs. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "collect/perf/perf_profile.h"
#include "collect/perf/stat_text.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/optparse.h"
#include "util/xalloc.h"

static const char stat_usage[] =
	"veles stat [-e EV,...] [-I MS] [-x SEP | --format text|csv|json] [-o FILE]\n"
	"           [--profile] [-p PID | -a] [--] [CMD [ARGS...]]";

static const char stat_about[] =
	"Counts events (see `veles list`) over CMD and its children, over the\n"
	"running process PID (until it exits or Ctrl-C), or over every CPU (-a,\n"
	"during CMD or until Ctrl-C). Counts are scaled when the kernel had to\n"
	"multiplex them (the share of time counted is shown) and followed by the\n"
	"usual ratios: CPUs utilized, events per second, IPC, miss rates.\n"
	"\n"
	"The exit status is CMD's when it fails; see docs/cli/stat.md for privileges.";

#define DEFAULT_EVENTS                                                                             \
	"task-clock,context-switches,cpu-migrations,page-faults,cycles,instructions,branches,"     \
	"branch-misses"

struct stat_opts {
	char *events; /* comma-separated, all -e joined */
	long interval_ms;
	struct stat_out out;
	FILE *f; /* where the counts go: stderr or -o FILE */
	const char *out_path;
	long pid;
	bool system_wide, profile;
	char **argv;
	int argc;
};

static volatile sig_atomic_t got_sigint, got_sigchld;

static void on_signal(int sig)
{
	if (sig == SIGINT)
		got_sigint = 1;
	else
		got_sigchld = 1;
}

/* No SA_RESTART: the waits below must wake on Ctrl-C and the child's exit. */
static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
}

static int opt_events(void *ctx, const struct opt *opt, const char *list)
{
	struct stat_opts *o = ctx;
	char *joined = o->events ? xasprintf("%s,%s", o->events, list) : xstrdup(list);

	UNUSED(opt);
	free(o->events);
	o->events = joined;
	return 0;
}

/* -x SEP and --format FMT. */
static int opt_format(void *ctx, const struct opt *opt, const char *v)
{
	struct stat_opts *o = ctx;

	if (opt->short_name == 'x')
		o->out.fmt = STAT_CSV, o->out.sep = v;
	else if (strcmp(v, "text") == 0)
		o->out.fmt = STAT_TEXT;
	else if (strcmp(v, "csv") == 0)
		o->out.fmt = STAT_CSV;
	else if (strcmp(v, "json") == 0)
		o->out.fmt = STAT_JSON;
	else
		return err_set(ERR_INVALID, "stat: unknown format '%s' (text, csv or json)", v);
	return 0;
}

static int parse_opts(struct stat_opts *o, int argc, char **argv)
{
	struct opt opts[] = {
		OPT_CALLBACK('e', "event", "EV,...", opt_events,
			     "events to count (repeatable); default: task-clock,\n"
			     "context-switches, cpu-migrations, page-faults, cycles,\n"
			     "instructions, branches, branch-misses; EV:u, :k, :h\n"
			     "count only user, kernel, hypervisor; :p, :pp, :ppp\n"
			     "ask for precise samples"),
		OPT_LONG('I', "interval", &o->interval_ms, "MS", 1,
			 "print the counts of every MS milliseconds (>= 1), on\n"
			 "absolute deadlines so the lines do not drift"),
		OPT_CALLBACK('x', NULL, "SEP", opt_format,
			     "CSV with SEP between fields (same as --format csv, ',')"),
		OPT_CALLBACK(0, "format", "FMT", opt_format,
			     "text (default), csv or json (one object per line)"),
		OPT_STRING('o', "output", &o->out_path, "FILE",
			   "write the counts to FILE instead of stderr"),
		OPT_LONG('p', "pid", &o->pid, "PID", 1,
			 "attach to the running process PID (all its threads)"),
		OPT_BOOL('a', "all-cpus", &o->system_wide,
			 "count system-wide (root or perf_event_paranoid <= 0)"),
		OPT_BOOL(0, "profile", &o->profile,
			 "also save the counts as a profile in .veles/jobs/"),
		OPT_HELP_LINE(),
		OPT_END(),
	};
	struct optparse p = {"stat", stat_usage, stat_about, opts, o, OPTP_STOP_AT_OPERAND};
	int ret, n;

	o->out.sep = ",";
	if ((ret = cli_parse_options(&p, argc, argv, &n)))
		return ret;
	if (o->pid > 0x3fffffff)
		return cli_usage_error("stat", "bad process id '%ld'", o->pid);
	o->argv = cli_argv_dup(argv + 1, n);
	o->argc = n;
	if (o->pid && (o->system_wide || o->argc))
		return cli_usage_error("stat", "-p takes no command and no -a");
	if (!o->pid && !o->system_wide && !o->argc)
		return cli_usage_error("stat", "nothing to count: give a command, -p PID or -a");
	if (!o->events)
		o->events = xstrdup(DEFAULT_EVENTS);
	return 0;
}

/* ---- counting ---- */

struct stat_ctx {
	struct stat_opts o;
	struct pcount c;
	struct stat_run run;
};

static void keep_records(struct stat_ctx *s, const struct pcount_value *v, double t)
{
	if (!s->o.profile)
		return;
	for (size_t i = 0; i < s->c.cs.n; i++) {
		s->run.recs =
			xgrow(s->run.recs, sizeof(*s->run.recs), s->run.nrecs + 1, &s->run.cap);
		s->run.recs[s->run.nrecs++] = (struct stat_record){t, i, v[i]};
	}
}

/* @b written to the counts' stream, then emptied. */
static void put(struct stat_ctx *s, struct buf *b)
{
	if (b->len)
		fwrite(b->data, 1, b->len, s->o.f);
	fflush(s->o.f);
	buf_reset(b);
}

static void on_interval(void *arg, const struct perf_counters *cs, const struct pcount_value *v,
			double span_ns, double t)
{
	struct stat_ctx *s = arg;
	struct buf b = BUF_INIT;

	(void)cs;
	stat_text(&s->o.out, v, span_ns, t, &b);
	put(s, &b);
	buf_release(&b);
	keep_records(s, v, t);
}

/* The whole run: the command is reaped by now, so its times are known. */
static void on_totals(void *arg, const struct perf_counters *cs, const struct pcount_value *v,
		      double span_ns, double t)
{
	struct stat_ctx *s = arg;
	bool text = s->o.out.fmt == STAT_TEXT;
	struct buf b = BUF_INIT;

	(void)cs;
	s->run.elapsed = t;
	if (text)
		stat_text_title(s->o.argv, s->o.argc, (int)s->o.pid, s->o.system_wide, &b);
	stat_text(&s->o.out, v, span_ns, -1, &b);
	if (text)
		stat_text_times(t, s->c.target.reaped ? &s->c.target.ru : NULL, &b);
	put(s, &b);
	buf_release(&b);
	keep_records(s, v, t);
}

/* ---- the command ---- */

static int save_profile(struct cli_ctx *ctx, struct stat_ctx *s)
{
	char head[41], label[32], *path = NULL;
	int ret;

	if (s->o.pid)
		snprintf(label, sizeof(label), "pid-%d", (int)s->o.pid);
	else
		snprintf(label, sizeof(label), "system-wide");
	s->run.label = label;
	s->run.argv = s->o.argv;
	s->run.argc = s->o.argc;
	s->run.events = s->o.events;
	s->run.interval_ms = (unsigned long)s->o.interval_ms;
	ret = stat_save_profile(&s->run, &s->c.cs, ctx->jobs_dir, cli_head(ctx, head) ? head : NULL,
				&path);
	if (ret == 0)
		fprintf(stderr, "veles stat: saved %s\n", path);
	free(path);
	return ret;
}

/* An event that cannot be named: the message says what to do already, so
 * no --help hint; a name that is no event is a usage error (2). */
static int event_error(int code)
{
	fflush(stdout);
	fprintf(stderr, "veles stat: %s\n", err_msg());
	return code == ERR_NOTFOUND ? 2 : 1;
}

static int run_stat(struct cli_ctx *ctx, struct stat_ctx *s)
{
	/* Ctrl-C ends what has no end of its own; a command gets it too. */
	struct ptarget_spec spec = {.argv = s->o.argc ? s->o.argv : NULL,
				    .argc = s->o.argc,
				    .pid = s->o.pid,
				    .system_wide = s->o.system_wide,
				    .stop = s->o.argc ? NULL : &got_sigint,
				    .stop_fd = -1};
	int ret;

	if ((ret = pcount_events(&s->c, s->o.events)) < 0)
		return event_error(ret);
	if ((s->o.profile && cli_open_project(ctx) < 0) || pcount_open(&s->c, &spec) < 0)
		return cli_fail();
	catch_signals();
	if (pcount_start(&s->c) < 0)
		return cli_fail();
	if (s->o.interval_ms) {
		struct buf b = BUF_INIT;

		stat_text_interval_header(&s->o.out, &b);
		put(s, &b);
		buf_release(&b);
	}
	ret = pcount_run(&s->c, (unsigned long)s->o.interval_ms,
			 s->o.interval_ms ? on_interval : on_totals, s);
	if (s->o.interval_ms)
		s->run.elapsed = s->c.elapsed;
	if (ret < 0)
		return cli_fail();
	if (s->o.profile && save_profile(ctx, s) < 0)
		return cli_fail();
	return ptarget_exit_status(&s->c.target);
}

static void release(struct stat_ctx *s)
{
	if (s->o.f && s->o.f != stderr)
		fclose(s->o.f);
	pcount_free(&s->c);
	free(s->o.events);
	free(s->o.argv);
	free(s->run.recs);
}

int cmd_stat(struct cli_ctx *ctx, int argc, char **argv)
{
	struct stat_ctx s = {0};
	int ret = parse_opts(&s.o, argc, argv);

	if (ret == 0) {
		s.o.f = s.o.out_path ? fopen(s.o.out_path, "we") : stderr;
		s.o.out.cs = &s.c.cs;
		if (!s.o.f)
			ret = cli_error("cannot write %s: %s", s.o.out_path, strerror(errno));
		else
			ret = run_stat(ctx, &s);
	}
	release(&s);
	return ret < 0 ? 0 : ret;
}
