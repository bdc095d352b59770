/* veles record: sample a command or a process into a record file. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "collect/perf/perf_profile.h"
#include "collect/perf/psample.h"
#include "util/error.h"
#include "util/optparse.h"
#include "util/xalloc.h"

static const char record_usage[] =
	"veles record [-e EV] [-F HZ | -c PERIOD] [-g] [-o FILE] [--profile]\n"
	"             [-p PID | -a [[--] CMD...] | [--] CMD...]";

static const char record_about[] =
	"Samples CMD and its children (or the running process PID, until it exits\n"
	"or Ctrl-C) through the kernel's ring buffers, keeping for each sample the\n"
	"instruction pointer, PID/TID, CPU, time and period (and the call chain\n"
	"with -g), with the mmap and comm records needed to name functions later\n"
	"(`veles report`). The file format is docs/perf-data.md.";

struct record_opts {
	const char *event, *out;
	unsigned long freq, period;
	bool callchain, profile, freq_given, all;
	long pid;
	char **argv;
	int argc;
};

static volatile sig_atomic_t record_sigint;

static void on_sigint(int sig)
{
	(void)sig;
	record_sigint = 1;
}

/* -F HZ or -c PERIOD: the last one given counts. */
static int opt_rate(void *ctx, const struct opt *opt, const char *arg)
{
	struct record_opts *o = ctx;
	char *end;
	unsigned long v = strtoul(arg, &end, 10);

	if (end == arg || *end || arg[0] == '-' || v < 1)
		return err_set(ERR_INVALID, "record: -%c needs a whole number of at least 1",
			       opt->short_name);
	o->freq_given = opt->short_name == 'F';
	o->freq = o->freq_given ? v : 0;
	o->period = o->freq_given ? 0 : v;
	return 0;
}

static int record_parse(struct record_opts *o, int argc, char **argv)
{
	struct opt opts[] = {
		OPT_STRING('e', "event", &o->event, "EV",
			   "the event to sample (default: cycles, or cpu-clock\n"
			   "where there is no hardware PMU); tracepoints keep\n"
			   "their raw fields, every event by default, and may be\n"
			   "several: -e sched:sched_wakeup,sched:sched_switch"),
		OPT_CALLBACK('F', "freq", "HZ", opt_rate, "samples per second (default 4000)"),
		OPT_CALLBACK('c', "count", "N", opt_rate, "a sample every N events instead"),
		OPT_BOOL('g', "call-graph", &o->callchain, "record call chains"),
		OPT_STRING('o', "output", &o->out, "FILE",
			   "where to write (default veles.data in the current\n"
			   "directory; a FILE there before becomes FILE.old)"),
		OPT_LONG('p', "pid", &o->pid, "PID", 1, "sample a running process"),
		OPT_BOOL('a', "all-cpus", &o->all,
			 "sample every process on every CPU (root or\n"
			 "perf_event_paranoid <= 0), while CMD runs or until\n"
			 "Ctrl-C"),
		OPT_BOOL(0, "profile", &o->profile,
			 "also save the samples as a profile in .veles/jobs/"),
		OPT_HELP_LINE(),
		OPT_END(),
	};
	struct optparse p = {"record", record_usage, record_about, opts, o, OPTP_STOP_AT_OPERAND};
	int ret, n;

	o->out = "veles.data";
	o->freq = 4000;
	if ((ret = cli_parse_options(&p, argc, argv, &n)))
		return ret;
	if (o->pid > 0x3fffffff)
		return cli_usage_error("record", "bad process id '%ld'", o->pid);
	o->argv = cli_argv_dup(argv + 1, n);
	o->argc = n;
	if (o->pid && o->argc)
		return cli_usage_error("record", "-p takes no command");
	if (o->pid && o->all)
		return cli_usage_error("record", "-a and -p exclude each other");
	if (!o->pid && !o->argc && !o->all)
		return cli_usage_error("record", "nothing to record: give a command or -p PID");
	return 0;
}

/* The events' attributes: a name that is no event says what to do already
 * (no --help hint); a list that cannot be sampled together is a usage error. */
static int record_events(struct record_opts *o, struct psample *p)
{
	struct psample_opts po = {.events = o->event,
				  .freq = o->freq,
				  .freq_given = o->freq_given,
				  .period = o->period,
				  .callchain = o->callchain};
	int ret = psample_events(p, &po);

	if (ret == ERR_PARSE)
		return cli_usage_error("record", "%s", err_msg());
	if (ret < 0) {
		fflush(stdout);
		fprintf(stderr, "veles record: %s\n", err_msg());
		return ret == ERR_NOTFOUND ? 2 : 1;
	}
	o->event = p->event;
	return 0;
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

static int record_sample(struct record_opts *o, struct psample *p)
{
	/* Ctrl-C ends what has no end of its own; a command gets it too. */
	struct ptarget_spec spec = {.argv = o->argc ? o->argv : NULL,
				    .argc = o->argc,
				    .pid = (pid_t)o->pid,
				    .system_wide = o->all,
				    .stop = o->argc ? NULL : &record_sigint,
				    .stop_fd = -1};
	struct sigaction sa = {.sa_handler = on_sigint};
	int ret = psample_create(p, o->out);

	if (ret == 0)
		ret = psample_open(p, &spec);
	if (ret == 0) {
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		ret = psample_start(p);
	}
	if (ret == 0)
		ret = psample_run(p, NULL);
	return ret;
}

static int record_main(struct cli_ctx *ctx, struct record_opts *o, struct psample *p, int argc,
		       char **argv)
{
	uint64_t samples, lost;
	int cret, ret = record_parse(o, argc, argv);

	if (ret != 0)
		return ret < 0 ? 0 : ret;
	if ((ret = record_events(o, p)) != 0)
		return ret;
	if (o->profile && cli_open_project(ctx) < 0)
		return cli_fail();
	ret = record_sample(o, p);
	samples = p->s.samples;
	lost = p->s.lost;
	psample_close(p);
	if (ret == 0)
		keep_previous(o->out);
	cret = psample_commit(p, ret == 0);
	if (ret < 0 || cret < 0)
		return cli_fail();
	fprintf(stderr, "veles record: %llu samples of %s written to %s",
		(unsigned long long)samples, o->event, o->out);
	if (lost)
		fprintf(stderr, " (%llu lost)", (unsigned long long)lost);
	fprintf(stderr, "\n");
	if (o->profile && save_profile(ctx, o) < 0)
		return cli_fail();
	return ptarget_exit_status(&p->target);
}

int cmd_record(struct cli_ctx *ctx, int argc, char **argv)
{
	struct record_opts o = {0};
	struct psample p = {0};
	int ret = record_main(ctx, &o, &p, argc, argv);

	psample_free(&p);
	free(o.argv);
	return ret;
}
