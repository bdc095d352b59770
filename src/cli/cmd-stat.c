/* veles stat: count events over a command, a running process or all CPUs. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/stat.h"
#include "util/error.h"
#include "util/xalloc.h"

static const char stat_usage[] =
	"usage: veles stat [-e EV,...] [-I MS] [-x SEP | --format text|csv|json] [-o FILE]\n"
	"                  [--profile] [-p PID | -a] [--] [CMD [ARGS...]]\n"
	"\n"
	"Counts events (see `veles list`) over CMD and its children, over the\n"
	"running process PID (until it exits or Ctrl-C), or over every CPU (-a,\n"
	"during CMD or until Ctrl-C). Counts are scaled when the kernel had to\n"
	"multiplex them (the share of time counted is shown) and followed by the\n"
	"usual ratios: CPUs utilized, events per second, IPC, miss rates.\n"
	"\n"
	"  -e, --event EV,...  events to count (repeatable); default: task-clock,\n"
	"                      context-switches, cpu-migrations, page-faults, cycles,\n"
	"                      instructions, branches, branch-misses; EV:u, :k, :h\n"
	"                      count only user, kernel, hypervisor; :p, :pp, :ppp\n"
	"                      ask for precise samples\n"
	"  -I, --interval MS   print the counts of every MS milliseconds (>= 1), on\n"
	"                      absolute deadlines so the lines do not drift\n"
	"  -x SEP              CSV with SEP between fields (same as --format csv, ',')\n"
	"  --format FMT        text (default), csv or json (one object per line)\n"
	"  -o, --output FILE   write the counts to FILE instead of stderr\n"
	"  -p, --pid PID       attach to the running process PID (all its threads)\n"
	"  -a, --all-cpus      count system-wide (root or perf_event_paranoid <= 0)\n"
	"  --profile           also save the counts as a profile in .veles/jobs/\n"
	"\n"
	"The exit status is CMD's when it fails; see docs/cli/stat.md for privileges.\n";

#define DEFAULT_EVENTS                                                                             \
	"task-clock,context-switches,cpu-migrations,page-faults,cycles,instructions,branches,"     \
	"branch-misses"

enum { OPT_FORMAT = 0x100, OPT_PROFILE };

struct stat_opts {
	char *events; /* comma-separated, all -e joined */
	unsigned long interval_ms;
	struct stat_out out;
	const char *out_path;
	pid_t pid;
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

static void add_events(struct stat_opts *o, const char *list)
{
	char *joined = o->events ? xasprintf("%s,%s", o->events, list) : xstrdup(list);

	free(o->events);
	o->events = joined;
}

static int parse_format(const char *v, struct stat_opts *o)
{
	if (strcmp(v, "text") == 0)
		o->out.fmt = STAT_TEXT;
	else if (strcmp(v, "csv") == 0)
		o->out.fmt = STAT_CSV;
	else if (strcmp(v, "json") == 0)
		o->out.fmt = STAT_JSON;
	else
		return cli_usage_error("stat", "unknown format '%s' (text, csv or json)", v);
	return 0;
}

static int parse_option(int c, struct stat_opts *o, char **argv)
{
	unsigned long v;

	switch (c) {
	case 'e':
		add_events(o, optarg);
		return 0;
	case 'I':
		if (cli_parse_uint("stat", "-I", optarg, &v) < 0)
			return 2;
		if (v < 1)
			return cli_usage_error("stat", "-I needs at least 1 ms");
		o->interval_ms = v;
		return 0;
	case 'x':
		o->out.fmt = STAT_CSV;
		o->out.sep = optarg;
		return 0;
	case OPT_FORMAT:
		return parse_format(optarg, o);
	case 'o':
		o->out_path = optarg;
		return 0;
	case 'p':
		if (cli_parse_uint("stat", "-p", optarg, &v) < 0)
			return 2;
		if (v < 1 || v > 0x3fffffff)
			return cli_usage_error("stat", "bad process id '%s'", optarg);
		o->pid = (pid_t)v;
		return 0;
	case 'a':
		o->system_wide = true;
		return 0;
	case OPT_PROFILE:
		o->profile = true;
		return 0;
	default:
		return cli_bad_option("stat", argv);
	}
}

static int parse_opts(struct stat_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{"event", required_argument, NULL, 'e'},
		{"interval", required_argument, NULL, 'I'},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"output", required_argument, NULL, 'o'},
		{"pid", required_argument, NULL, 'p'},
		{"all-cpus", no_argument, NULL, 'a'},
		{"profile", no_argument, NULL, OPT_PROFILE},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, ret;

	o->out.sep = ",";
	while ((c = getopt_long(argc, argv, "+he:I:x:o:p:a", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(stat_usage, stdout);
			return -1;
		}
		if ((ret = parse_option(c, o, argv)) != 0)
			return ret;
	}
	o->argv = argv + optind;
	o->argc = argc - optind;
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

static void on_interval(void *arg, const struct perf_counters *cs, const struct pcount_value *v,
			double span_ns, double t)
{
	struct stat_ctx *s = arg;

	(void)cs;
	stat_print(&s->o.out, v, span_ns, t);
	fflush(s->o.out.f);
	keep_records(s, v, t);
}

static void print_title(struct stat_ctx *s)
{
	FILE *f = s->o.out.f;

	fprintf(f, "\n Performance counter stats for ");
	if (s->o.pid)
		fprintf(f, "process id '%d'", (int)s->o.pid);
	else if (s->o.system_wide)
		fprintf(f, "'system wide'");
	else
		for (int i = 0; i < s->o.argc; i++)
			fprintf(f, "%s%s%s", i ? " " : "'", s->o.argv[i],
				i + 1 == s->o.argc ? "'" : "");
	fprintf(f, ":\n\n");
}

static void print_times(struct stat_ctx *s)
{
	FILE *f = s->o.out.f;
	const struct rusage *ru = &s->c.target.ru;

	fprintf(f, "\n%18.9f seconds time elapsed\n", s->run.elapsed);
	if (s->c.target.reaped)
		fprintf(f, "\n%18.9f seconds user\n%18.9f seconds sys\n",
			(double)ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6,
			(double)ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6);
	fprintf(f, "\n");
}

/* The whole run: the command is reaped by now, so its times are known. */
static void on_totals(void *arg, const struct perf_counters *cs, const struct pcount_value *v,
		      double span_ns, double t)
{
	struct stat_ctx *s = arg;

	(void)cs;
	s->run.elapsed = t;
	if (s->o.out.fmt == STAT_TEXT)
		print_title(s);
	stat_print(&s->o.out, v, span_ns, -1);
	if (s->o.out.fmt == STAT_TEXT)
		print_times(s);
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
	s->run.interval_ms = s->o.interval_ms;
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
	if (s->o.interval_ms)
		stat_print_interval_header(&s->o.out);
	ret = pcount_run(&s->c, s->o.interval_ms, s->o.interval_ms ? on_interval : on_totals, s);
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
	if (s->o.out.f && s->o.out.f != stderr)
		fclose(s->o.out.f);
	pcount_free(&s->c);
	free(s->o.events);
	free(s->run.recs);
}

int cmd_stat(struct cli_ctx *ctx, int argc, char **argv)
{
	struct stat_ctx s = {0};
	int ret = parse_opts(&s.o, argc, argv);

	if (ret == 0) {
		s.o.out.f = s.o.out_path ? fopen(s.o.out_path, "we") : stderr;
		s.o.out.cs = &s.c.cs;
		if (!s.o.out.f)
			ret = cli_error("cannot write %s: %s", s.o.out_path, strerror(errno));
		else
			ret = run_stat(ctx, &s);
	}
	release(&s);
	return ret < 0 ? 0 : ret;
}
