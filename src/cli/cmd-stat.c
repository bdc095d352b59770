/* veles stat: count events over a command, a running process or all CPUs. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/stat.h"
#include "perf/child.h"
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

/* ---- the target ---- */

struct stat_ctx {
	struct stat_opts o;
	struct perf_counters cs;
	struct perf_child ch; /* the command, if any */
	pid_t *tids;	      /* -p: the threads */
	size_t ntids;
	int pidfd; /* -p: becomes readable when the process exits */
	bool reaped;
	int status;
	struct rusage ru;
	struct timespec start;
	struct stat_run run;
};

static int open_target(struct stat_ctx *s)
{
	struct perf_target t = {.kind = TARGET_SYSTEM};

	if (s->o.pid) {
		if (perf_pid_threads(s->o.pid, &s->tids, &s->ntids) < 0)
			return ERR_NOTFOUND;
		s->pidfd = (int)syscall(SYS_pidfd_open, s->o.pid, 0);
		t = (struct perf_target){TARGET_PIDS, s->tids, s->ntids};
	} else if (s->o.argc) {
		if (perf_child_fork(&s->ch, s->o.argv) < 0)
			return ERR_CHILD;
		if (!s->o.system_wide)
			t = (struct perf_target){TARGET_CHILD, &s->ch.pid, 1};
	}
	return perf_counters_open(&s->cs, &t);
}

/* True once the target is gone (or Ctrl-C ended an open-ended count);
 * @block waits for that. */
static bool target_ended(struct stat_ctx *s, bool block)
{
	if (s->ch.pid) {
		pid_t r;

		do
			r = wait4(s->ch.pid, &s->status, block ? 0 : WNOHANG, &s->ru);
		while (block && r < 0 && errno == EINTR);
		s->reaped = r == s->ch.pid;
		return s->reaped;
	}
	if (got_sigint)
		return true;
	if (block && (s->pidfd >= 0 || !s->o.pid)) {
		struct pollfd p = {.fd = s->pidfd, .events = POLLIN};

		poll(&p, s->pidfd >= 0 ? 1 : 0, -1);
		return true;
	}
	if (s->pidfd >= 0) {
		struct pollfd p = {.fd = s->pidfd, .events = POLLIN};

		return poll(&p, 1, 0) > 0;
	}
	/* No pidfd (kernels before 5.3): look for the process every 100 ms. */
	while (s->o.pid && !(kill(s->o.pid, 0) < 0 && errno == ESRCH)) {
		if (!block || got_sigint)
			return got_sigint;
		poll(NULL, 0, 100);
	}
	return s->o.pid != 0;
}

/* ---- counting ---- */

static double since_ns(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e9 + (double)(b->tv_nsec - a->tv_nsec);
}

static void keep_records(struct stat_ctx *s, const struct stat_sample *smp, double t)
{
	if (!s->o.profile)
		return;
	for (size_t i = 0; i < s->cs.n; i++) {
		s->run.recs =
			xgrow(s->run.recs, sizeof(*s->run.recs), s->run.nrecs + 1, &s->run.cap);
		s->run.recs[s->run.nrecs++] = (struct stat_record){t, i, smp[i]};
	}
}

/* The counts since @prev (all zero for totals), scaled; @prev becomes now. */
static void take_samples(const struct perf_counters *cs, struct stat_sample *prev,
			 struct stat_sample *out)
{
	for (size_t i = 0; i < cs->n; i++) {
		const struct perf_counter *c = &cs->v[i];

		out[i].raw = c->value - prev[i].raw;
		out[i].enabled = c->enabled - prev[i].enabled;
		out[i].running = c->running - prev[i].running;
		out[i].value = perf_scaled(out[i].raw, out[i].enabled, out[i].running);
		prev[i] = (struct stat_sample){0, c->value, c->enabled, c->running};
	}
}

static struct timespec deadline(const struct timespec *start, unsigned long long ns)
{
	struct timespec d = *start;
	unsigned long long t = (unsigned long long)d.tv_nsec + ns;

	d.tv_sec += (time_t)(t / 1000000000ULL);
	d.tv_nsec = (long)(t % 1000000000ULL);
	return d;
}

/* A line per interval: each deadline is start + k * interval, so a late
 * wake-up never pushes the following ones back. */
static int count_intervals(struct stat_ctx *s)
{
	struct stat_sample *prev = xcalloc(s->cs.n, sizeof(*prev));
	struct stat_sample *smp = xcalloc(s->cs.n, sizeof(*smp));
	unsigned long long step = (unsigned long long)s->o.interval_ms * 1000000ULL;
	struct timespec last = s->start, now;
	bool done = false;
	int ret = 0;

	stat_print_interval_header(&s->o.out);
	for (unsigned long long k = 1; !done && ret == 0; k++) {
		struct timespec dl = deadline(&s->start, k * step);

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &dl, NULL) == EINTR)
			if ((done = target_ended(s, false)))
				break;
		done = done || target_ended(s, false);
		ret = perf_counters_read(&s->cs);
		clock_gettime(CLOCK_MONOTONIC, &now);
		take_samples(&s->cs, prev, smp);
		stat_print(&s->o.out, smp, since_ns(&last, &now), since_ns(&s->start, &now) / 1e9);
		fflush(s->o.out.f);
		keep_records(s, smp, since_ns(&s->start, &now) / 1e9);
		last = now;
	}
	s->run.elapsed = since_ns(&s->start, &now) / 1e9;
	free(prev);
	free(smp);
	return ret;
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

	fprintf(f, "\n%18.9f seconds time elapsed\n", s->run.elapsed);
	if (s->reaped)
		fprintf(f, "\n%18.9f seconds user\n%18.9f seconds sys\n",
			(double)s->ru.ru_utime.tv_sec + s->ru.ru_utime.tv_usec / 1e6,
			(double)s->ru.ru_stime.tv_sec + s->ru.ru_stime.tv_usec / 1e6);
	fprintf(f, "\n");
}

static int count_totals(struct stat_ctx *s)
{
	struct stat_sample *zero = xcalloc(s->cs.n, sizeof(*zero));
	struct stat_sample *smp = xcalloc(s->cs.n, sizeof(*smp));
	struct timespec end;
	int ret;

	target_ended(s, true);
	clock_gettime(CLOCK_MONOTONIC, &end);
	s->run.elapsed = since_ns(&s->start, &end) / 1e9;
	ret = perf_counters_read(&s->cs);
	if (ret == 0) {
		take_samples(&s->cs, zero, smp);
		if (s->o.out.fmt == STAT_TEXT)
			print_title(s);
		stat_print(&s->o.out, smp, since_ns(&s->start, &end), -1);
		if (s->o.out.fmt == STAT_TEXT)
			print_times(s);
		keep_records(s, smp, s->run.elapsed);
	}
	free(zero);
	free(smp);
	return ret;
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
	ret = stat_save_profile(&s->run, &s->cs, ctx->jobs_dir, cli_head(ctx, head) ? head : NULL,
				&path);
	if (ret == 0)
		fprintf(stderr, "veles stat: saved %s\n", path);
	free(path);
	return ret;
}

/* The exit status: the command's when it failed, as a shell reports it. */
static int command_status(const struct stat_ctx *s)
{
	if (!s->reaped)
		return 0;
	if (WIFEXITED(s->status))
		return WEXITSTATUS(s->status);
	return WIFSIGNALED(s->status) ? 128 + WTERMSIG(s->status) : 0;
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
	int ret;

	if ((ret = perf_counters_add(&s->cs, s->o.events)) < 0)
		return event_error(ret);
	if ((s->o.profile && cli_open_project(ctx) < 0) || open_target(s) < 0)
		return cli_fail();
	catch_signals();
	clock_gettime(CLOCK_MONOTONIC, &s->start);
	if (s->ch.pid && perf_child_start(&s->ch, s->o.argv[0]) < 0)
		return cli_fail();
	ret = s->o.interval_ms ? count_intervals(s) : count_totals(s);
	if (s->ch.pid && !s->reaped)
		target_ended(s, true);
	if (ret < 0)
		return cli_fail();
	if (s->o.profile && save_profile(ctx, s) < 0)
		return cli_fail();
	return command_status(s);
}

static void release(struct stat_ctx *s)
{
	if (!s->reaped)
		perf_child_release(&s->ch);
	if (s->pidfd >= 0)
		close(s->pidfd);
	if (s->o.out.f && s->o.out.f != stderr)
		fclose(s->o.out.f);
	perf_counters_free(&s->cs);
	free(s->o.events);
	free(s->tids);
	free(s->run.recs);
}

int cmd_stat(struct cli_ctx *ctx, int argc, char **argv)
{
	struct stat_ctx s = {.ch = {0, -1, -1}, .pidfd = -1};
	int ret = parse_opts(&s.o, argc, argv);

	if (ret == 0) {
		s.o.out.f = s.o.out_path ? fopen(s.o.out_path, "we") : stderr;
		s.o.out.cs = &s.cs;
		if (!s.o.out.f)
			ret = cli_error("cannot write %s: %s", s.o.out_path, strerror(errno));
		else
			ret = run_stat(ctx, &s);
	}
	release(&s);
	return ret < 0 ? 0 : ret;
}
