/* veles record: sample a command or a process into a record file. */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/record.h"
#include "perf/child.h"
#include "perf/counters.h"
#include "perf/sampler.h"
#include "util/error.h"
#include "util/xalloc.h"

static const char record_usage[] =
	"usage: veles record [-e EV] [-F HZ | -c PERIOD] [-g] [-o FILE] [--profile]\n"
	"                    [-p PID | -a [[--] CMD...] | [--] CMD...]\n"
	"\n"
	"Samples CMD and its children (or the running process PID, until it exits\n"
	"or Ctrl-C) through the kernel's ring buffers, keeping for each sample the\n"
	"instruction pointer, PID/TID, CPU, time and period (and the call chain\n"
	"with -g), with the mmap and comm records needed to name functions later\n"
	"(`veles report`). The file format is docs/perf-data.md.\n"
	"\n"
	"  -e, --event EV      the event to sample (default: cycles, or cpu-clock\n"
	"                      where there is no hardware PMU); tracepoints keep\n"
	"                      their raw fields, every event by default, and may be\n"
	"                      several: -e sched:sched_wakeup,sched:sched_switch\n"
	"  -F, --freq HZ       samples per second (default 4000)\n"
	"  -c, --count N       a sample every N events instead\n"
	"  -g, --call-graph    record call chains\n"
	"  -o, --output FILE   where to write (default veles.data in the current\n"
	"                      directory; a FILE there before becomes FILE.old)\n"
	"  -p, --pid PID       sample a running process\n"
	"  -a, --all-cpus      sample every process on every CPU (root or\n"
	"                      perf_event_paranoid <= 0), while CMD runs or until\n"
	"                      Ctrl-C\n"
	"  --profile           also save the samples as a profile in .veles/jobs/\n";

enum { OPT_RECORD_PROFILE = 0x100, RECORD_MAX_EVENTS = 16 };

struct record_opts {
	const char *event, *out;
	unsigned long freq, period;
	bool callchain, profile, freq_given, all;
	/* -e split at commas: several events must all be tracepoints */
	char *names[RECORD_MAX_EVENTS];
	struct perf_event_attr attrs[RECORD_MAX_EVENTS];
	size_t nev;
	pid_t pid;
	char **argv;
	int argc;
};

static volatile sig_atomic_t record_sigint;

static void on_sigint(int sig)
{
	(void)sig;
	record_sigint = 1;
}

static int record_option(int c, struct record_opts *o, char **argv)
{
	unsigned long v;

	switch (c) {
	case 'e':
		o->event = optarg;
		return 0;
	case 'F':
	case 'c':
		if (cli_parse_uint("record", c == 'F' ? "-F" : "-c", optarg, &v) < 0)
			return 2;
		if (v < 1)
			return cli_usage_error("record", "-%c needs at least 1", c);
		o->freq = c == 'F' ? v : 0;
		o->freq_given = c == 'F';
		o->period = c == 'c' ? v : 0;
		return 0;
	case 'g':
		o->callchain = true;
		return 0;
	case 'a':
		o->all = true;
		return 0;
	case 'o':
		o->out = optarg;
		return 0;
	case OPT_RECORD_PROFILE:
		o->profile = true;
		return 0;
	case 'p':
		if (cli_parse_uint("record", "-p", optarg, &v) < 0)
			return 2;
		if (v < 1 || v > 0x3fffffff)
			return cli_usage_error("record", "bad process id '%s'", optarg);
		o->pid = (pid_t)v;
		return 0;
	default:
		return cli_bad_option("record", argv);
	}
}

static int record_parse(struct record_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{"event", required_argument, NULL, 'e'},
		{"freq", required_argument, NULL, 'F'},
		{"count", required_argument, NULL, 'c'},
		{"call-graph", no_argument, NULL, 'g'},
		{"output", required_argument, NULL, 'o'},
		{"pid", required_argument, NULL, 'p'},
		{"all-cpus", no_argument, NULL, 'a'},
		{"profile", no_argument, NULL, OPT_RECORD_PROFILE},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, ret;

	o->out = "veles.data";
	o->freq = 4000;
	while ((c = getopt_long(argc, argv, "+he:F:c:go:p:a", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(record_usage, stdout);
			return -1;
		}
		if ((ret = record_option(c, o, argv)) != 0)
			return ret;
	}
	o->argv = argv + optind;
	o->argc = argc - optind;
	if (o->pid && o->argc)
		return cli_usage_error("record", "-p takes no command");
	if (o->pid && o->all)
		return cli_usage_error("record", "-a and -p exclude each other");
	if (!o->pid && !o->argc && !o->all)
		return cli_usage_error("record", "nothing to record: give a command or -p PID");
	return 0;
}

/*
 * What to sample of an event. A tracepoint also keeps its raw fields
 * (PERF_SAMPLE_RAW, for veles script) and, unless -F or -c says otherwise,
 * every occurrence: a tracepoint's rate is the program's, not a clock's.
 */
static void record_sampling(const struct record_opts *o, struct perf_event_attr *attr)
{
	bool tp = attr->type == PERF_TYPE_TRACEPOINT;
	unsigned long period = o->period ? o->period : (tp && !o->freq_given ? 1 : 0);

	attr->sample_type = PERF_SAMPLER_TYPE | (o->callchain ? PERF_SAMPLE_CALLCHAIN : 0) |
			    (tp ? PERF_SAMPLE_RAW : 0);
	attr->freq = period == 0;
	if (period)
		attr->sample_period = period;
	else
		attr->sample_freq = o->freq;
}

/* -e A,B,...: each name parsed; more than one must all be tracepoints, whose
 * samples say which they are (their raw data starts with the event's id). */
static int record_split_events(struct record_opts *o)
{
	char *list = xstrdup(o->event), *save = NULL;
	int ret;

	for (char *n = strtok_r(list, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
		if (o->nev == RECORD_MAX_EVENTS) {
			free(list);
			return cli_usage_error("record", "at most %d events", RECORD_MAX_EVENTS);
		}
		o->names[o->nev] = xstrdup(n);
		if ((ret = perf_event_parse(n, &o->attrs[o->nev++])) < 0) {
			free(list);
			/* The message says what to do already: no --help hint. */
			fflush(stdout);
			fprintf(stderr, "veles record: %s\n", err_msg());
			return ret == ERR_NOTFOUND ? 2 : 1;
		}
	}
	free(list);
	if (o->nev == 0)
		return cli_usage_error("record", "-e needs an event name");
	for (size_t i = 0; o->nev > 1 && i < o->nev; i++)
		if (o->attrs[i].type != PERF_TYPE_TRACEPOINT)
			return cli_usage_error("record",
					       "several events must all be tracepoints "
					       "(%s is not one)",
					       o->names[i]);
	return 0;
}

/* The events' attributes; the default falls back to cpu-clock without a PMU. */
static int record_attrs(struct record_opts *o)
{
	int ret;

	if (!o->event) {
		o->event = "cycles";
		perf_event_parse(o->event, &o->attrs[0]);
		if (perf_probe(&o->attrs[0]) != 0) {
			o->event = "cpu-clock";
			perf_event_parse(o->event, &o->attrs[0]);
		}
		o->names[o->nev++] = xstrdup(o->event);
	} else if ((ret = record_split_events(o)) != 0) {
		return ret;
	}
	for (size_t i = 0; i < o->nev; i++)
		record_sampling(o, &o->attrs[i]);
	return 0;
}

/* The format file of each tracepoint, kept in the recording (docs/perf-data.md). */
static int record_formats(const struct record_opts *o, struct perf_data_writer *w)
{
	int ret = 0;

	for (size_t i = 0; i < o->nev && ret == 0; i++) {
		char *text = NULL, *sys;

		if (o->attrs[i].type != PERF_TYPE_TRACEPOINT)
			continue;
		if ((ret = perf_tracepoint_format(o->names[i], &text)) < 0)
			break;
		sys = xstrndup(o->names[i], strcspn(o->names[i], ":"));
		ret = perf_data_write_tpformat(w, sys, text);
		free(sys);
		free(text);
	}
	return ret;
}

struct record_run {
	struct perf_child ch;
	pid_t *tids;
	size_t ntids;
	int pidfd;
	int status;
	bool reaped;
};

static bool record_ended(struct record_run *r)
{
	if (r->ch.pid) {
		r->reaped = waitpid(r->ch.pid, &r->status, WNOHANG) == r->ch.pid;
		return r->reaped;
	}
	if (record_sigint)
		return true;
	if (r->pidfd >= 0) {
		struct pollfd p = {.fd = r->pidfd, .events = POLLIN};

		return poll(&p, 1, 0) > 0;
	}
	if (!r->tids)
		return false; /* -a without a command: until Ctrl-C */
	return kill(r->tids[0], 0) < 0 && errno == ESRCH;
}

static int record_loop(struct record_opts *o, struct record_run *r, struct perf_sampler *s)
{
	struct sigaction sa = {.sa_handler = on_sigint};
	int ret = 0;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (r->ch.pid && perf_child_start(&r->ch, o->argv[0]) < 0)
		return ERR_CHILD;
	while (ret == 0 && !record_ended(r))
		ret = perf_sampler_poll(s, 100);
	return ret < 0 ? ret : perf_sampler_drain(s);
}

static int record_open(struct record_opts *o, struct record_run *r, struct perf_sampler *s)
{
	int ret = 0;

	if (o->all) {
		if (o->argc && perf_child_fork(&r->ch, o->argv) < 0)
			return ERR_CHILD;
	} else if (o->pid) {
		if (perf_pid_threads(o->pid, &r->tids, &r->ntids) < 0)
			return ERR_NOTFOUND;
		r->pidfd = (int)syscall(SYS_pidfd_open, o->pid, 0);
		if (perf_sampler_synthesize(s->out, o->pid) < 0)
			return ERR_IO;
	} else if (perf_child_fork(&r->ch, o->argv) < 0) {
		return ERR_CHILD;
	}
	for (size_t i = 0; i < o->nev && ret == 0; i++)
		ret = perf_sampler_open(s, o->names[i], &o->attrs[i],
					o->all ? PERF_SAMPLER_ALL : r->ch.pid, r->tids, r->ntids);
	/* Named after the events are open, so no thread falls in between. */
	if (ret == 0 && o->all && perf_sampler_synthesize_all(s->out) < 0)
		return ERR_IO;
	return ret;
}

static int record_status(const struct record_run *r)
{
	if (!r->reaped)
		return 0;
	if (WIFEXITED(r->status))
		return WEXITSTATUS(r->status);
	return WIFSIGNALED(r->status) ? 128 + WTERMSIG(r->status) : 0;
}

static int save_profile(struct cli_ctx *ctx, const struct record_opts *o)
{
	char head[41], label[32], *path = NULL;
	struct record_info ri = {.data_path = o->out,
				 .argv = o->argv,
				 .argc = o->argc,
				 .label = label,
				 .freq = o->period ? 0 : o->freq,
				 .period = o->period,
				 .callchain = o->callchain};
	int ret;

	snprintf(label, sizeof(label), "pid-%d", (int)o->pid);
	ri.origin = cli_head(ctx, head) ? head : NULL;
	ret = record_save_profile(&ri, ctx->jobs_dir, &path);
	if (ret == 0)
		fprintf(stderr, "veles record: saved %s\n", path);
	free(path);
	return ret;
}

/* As perf keeps perf.data.old: the recording @path replaces is renamed
 * FILE.old, not lost (a regular file that is not empty; else left). */
static void keep_previous(const char *path)
{
	struct stat st;
	char *old;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
		return;
	old = xasprintf("%s.old", path);
	if (rename(path, old) < 0)
		cli_warn("record: cannot keep the previous %s as %s: %s", path, old,
			 strerror(errno));
	free(old);
}

static int record_main(struct cli_ctx *ctx, struct record_opts *o, int argc, char **argv)
{
	struct record_run r = {.ch = {0, -1, -1}, .pidfd = -1};
	struct perf_sampler s = {0};
	struct perf_data_writer w = {0};
	struct perf_data_header h = {.magic = PERF_DATA_MAGIC, .version = PERF_DATA_VERSION};
	uint64_t samples, lost;
	int cret, ret = record_parse(o, argc, argv);

	if (ret != 0)
		return ret < 0 ? 0 : ret;
	if ((ret = record_attrs(o)) != 0)
		return ret;
	if (o->profile && cli_open_project(ctx) < 0)
		return cli_fail();
	h.name_len = (uint32_t)strlen(o->event);
	h.header_size = (uint32_t)(sizeof(h) + h.name_len);
	h.sample_type = o->attrs[0].sample_type;
	h.freq = o->attrs[0].freq;
	h.period = h.freq ? o->attrs[0].sample_freq : o->attrs[0].sample_period;
	h.event_type = o->attrs[0].type;
	h.event_config = o->attrs[0].config;
	s.out = &w;
	ret = perf_data_create(&w, o->out, &h, o->event);
	if (ret == 0)
		ret = record_formats(o, &w);
	if (ret == 0)
		ret = record_open(o, &r, &s);
	if (ret == 0)
		ret = record_loop(o, &r, &s);
	if (!r.reaped)
		perf_child_release(&r.ch);
	samples = s.samples;
	lost = s.lost;
	perf_sampler_close(&s);
	if (ret == 0)
		keep_previous(o->out);
	cret = perf_data_close(&w, ret == 0);
	free(r.tids);
	if (r.pidfd >= 0)
		close(r.pidfd);
	if (ret < 0 || cret < 0)
		return cli_fail();
	fprintf(stderr, "veles record: %llu samples of %s written to %s",
		(unsigned long long)samples, o->event, o->out);
	if (lost)
		fprintf(stderr, " (%llu lost)", (unsigned long long)lost);
	fprintf(stderr, "\n");
	if (o->profile && save_profile(ctx, o) < 0)
		return cli_fail();
	return record_status(&r);
}

int cmd_record(struct cli_ctx *ctx, int argc, char **argv)
{
	struct record_opts o = {0};
	int ret = record_main(ctx, &o, argc, argv);

	for (size_t i = 0; i < o.nev; i++)
		free(o.names[i]);
	return ret;
}
