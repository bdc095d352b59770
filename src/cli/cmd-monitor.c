/*
 * veles monitor: samples the system from /proc at an interval and prints
 * rates (brief, verbose or plot), records raw samples with -f, plays a
 * recording back with -p. Option letters follow collectl's.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli/cli.h"
#include "collect/collector.h"
#include "monitor/export.h"
#include "monitor/modules.h"
#include "monitor/options.h"
#include "monitor/procs.h"
#include "monitor/run.h"
#include "util/common.h"
#include "util/optparse.h"

static int interval_opt(void *ctx, const struct opt *o, const char *arg)
{
	struct mon_run_opts *m = ctx;

	UNUSED(o);
	return mon_parse_interval(arg, &m->interval);
}

/* -c, -d and --hr: counts, not negative. */
static int uint_opt(void *ctx, const struct opt *o, const char *arg)
{
	struct mon_run_opts *m = ctx;
	unsigned long n;
	int ret = mon_parse_uint(o->short_name == 'c'	? "--count"
				 : o->short_name == 'd' ? "--debug"
							: "--hr",
				 arg, &n);

	if (ret < 0)
		return ret;
	if (o->short_name == 'c')
		m->count = (long)n;
	else if (o->short_name == 'd')
		m->debug = (int)n;
	else
		m->hr = n;
	if (!o->short_name) /* --hr: headings as asked, not as the format's */
		m->hr_set = true;
	return 0;
}

/* --verbose and -P: the table's form. */
static int format_opt(void *ctx, const struct opt *o, const char *arg)
{
	struct mon_run_opts *m = ctx;

	UNUSED(arg);
	m->format = o->short_name == 'P' ? MON_PLOT : MON_VERBOSE;
	return 0;
}

static int sep_opt(void *ctx, const struct opt *o, const char *arg)
{
	struct mon_run_opts *m = ctx;

	UNUSED(o);
	if (strlen(arg) != 1)
		return err_set(ERR_INVALID, "monitor: --sep takes one character");
	m->sep = arg[0];
	return 0;
}

static int export_opt(void *ctx, const struct opt *o, const char *arg)
{
	struct mon_run_opts *m = ctx;
	struct mon_export e;
	int rc = mon_export_parse(&e, arg);

	UNUSED(o);
	mon_export_close(&e);
	if (rc < 0)
		return err_prefix(ERR_INVALID, "monitor");
	m->export_spec = arg;
	return 0;
}

/* --procfilt and --top, checked as the run will parse them. */
static int procsel_opt(void *ctx, const struct opt *o, const char *arg)
{
	struct mon_run_opts *m = ctx;
	struct mon_procsel sel = {.sort = -1};
	bool top = strcmp(o->long_name, "top") == 0;

	if ((top ? mon_procsel_top(&sel, arg) : mon_procsel_filter(&sel, arg)) < 0)
		return err_prefix(ERR_INVALID, "monitor");
	*(top ? &m->top : &m->procfilt) = arg;
	return 0;
}

#define HR_HELP                                                                                    \
	"brief and verbose headings every N intervals (0:\nonce; default: brief once, verbose "    \
	"every record)"

static const char usage[] = "veles monitor [-s SUBSYSTEMS] [-i INTERVAL] [-c COUNT] [options]\n"
			    "veles monitor [options] [--profile] -- COMMAND [ARGS...]";

static const char about[] =
	"Samples the system from /proc every INTERVAL seconds and prints counters as\n"
	"rates per second: one line per interval (brief), a section per subsystem\n"
	"(verbose) or plot lines. Letters follow collectl's.";

static int parse_args(int argc, char **argv, struct mon_run_opts *o)
{
	char *dirs = mon_module_dirs(), *where = xasprintf("Modules are looked up in: %s", dirs);
	const struct opt opts[] = {
		OPT_STRING('s', "subsys", &o->letters, "LETTERS",
			   "subsystems (default cdn; playing back, the recorded\n"
			   "ones; with --profile, cdmn): c cpu, C per cpu and\n"
			   "its clock, d disks, D per disk, m memory, n network,\n"
			   "N per interface, j interrupts, J per interrupt,\n"
			   "s sockets, f nfs client, z process counts and load,\n"
			   "Z each process"),
		OPT_CALLBACK('i', "interval", "SECS", interval_opt,
			     "seconds between samples, fractions allowed (default 1;\n"
			     "0 samples back to back)"),
		OPT_CALLBACK('c', "count", "N", uint_opt,
			     "stop after N intervals (default: until interrupted)"),
		OPT_FLAG_CALLBACK(0, "verbose", format_opt,
				  "a section per subsystem (details imply it)"),
		OPT_FLAG_CALLBACK('P', "plot", format_opt,
				  "one line per interval with a header, for plotting"),
		OPT_CALLBACK(0, "sep", "CHAR", sep_opt, "plot separator (default a space)"),
		OPT_CALLBACK(0, "hr", "N", uint_opt, HR_HELP),
		{.kind = OPT_KIND_CALLBACK,
		 .long_name = "headerrepeat",
		 .argh = "N",
		 .cb = uint_opt,
		 .flags = OPT_HIDDEN},
		OPT_BOOL(0, "on", &o->per_interval, "counters per interval instead of per second"),
		OPT_STRING('f', "filename", &o->record, "FILE",
			   "record raw samples to FILE (compressed); prints\n"
			   "nothing unless -P or --export is given too"),
		OPT_STRING('p', "playback", &o->playback, "FILE",
			   "play back a recording in any output format"),
		OPT_CALLBACK('d', "debug", "N", uint_opt,
			     "N >= 4: show each sample as it is recorded"),
		OPT_BOOL(0, "self", &o->self, "print the cpu time used per sample on exit"),
		OPT_STRING(0, "import", &o->imports, "F[,OPTS][:F2...]",
			   "load import modules (shared objects): hello, misc,\n"
			   "gpu or your own; a bare NAME is the first NAME.so\n"
			   "in $VELES_MODULE_PATH, then the modules built with\n"
			   "this veles (its build tree's plugins/, or LIBDIR/\n"
			   "veles/monitor beside an installed tree that was\n"
			   "moved), then the installed modules (see below)"),
		OPT_CALLBACK(0, "export", "KIND", export_opt,
			     "send values instead of printing a table:\n"
			     "lexpr[,HOST:PORT] (\"name value\" lines),\n"
			     "graphite,HOST:PORT (plaintext protocol),\n"
			     "prometheus,[ADDR:]PORT (serves /metrics on\n"
			     "127.0.0.1, or on ADDR: 0.0.0.0 for every IPv4\n"
			     "address, [::1] in brackets for IPv6)"),
		OPT_CALLBACK(0, "procfilt", "LIST", procsel_opt,
			     "-s Z: only processes matching one of cNAME (command\n"
			     "contains), CPREFIX, pPID, PPPID (parent), uUSER, UUID"),
		OPT_CALLBACK(0, "top", "[FIELD][,N]", procsel_opt,
			     "-s Z: the N (20) processes highest in FIELD: time\n"
			     "(cpu, the default), syst, usrt, accum, vsz, rss,\n"
			     "majf, minf, flt"),
		OPT_STRING(0, "proc", &o->proc_root, "DIR",
			   "read DIR instead of /proc, DIR/sys instead of /sys\n"
			   "(saved files)"),
		OPT_BOOL(0, "profile", &o->profile,
			 "with -- COMMAND: write the summary values of each\n"
			 "interval (and of --import modules) as a Veles\n"
			 "profile in .veles/jobs/; takes -s, -i, -c, --on"),
		OPT_HELP_LINE(),
		OPT_GROUP("With -- COMMAND, runs COMMAND and samples until it exits; the exit "
			  "status\nis COMMAND's."),
		/* The search order made concrete: the directories as this veles sees them. */
		OPT_GROUP(where),
		OPT_END(),
	};
	const struct optparse p = {.name = "monitor",
				   .usage = usage,
				   .about = about,
				   .opts = opts,
				   .ctx = o,
				   .flags = OPTP_STOP_AT_OPERAND | OPTP_KEEP_DASHDASH};
	int nop, ret = cli_parse_options(&p, argc, argv, &nop);

	free(where);
	free(dirs);
	if (ret != 0)
		return ret < 0 ? 1 : ret;
	/* A command goes after "--", which stays among the operands. */
	if (nop && strcmp(argv[1], "--") != 0)
		return cli_usage_error(
			"monitor", "unexpected argument '%s' (a command goes after --)", argv[1]);
	/* The command ends where the options (moved after it) begin. */
	if (nop > 1) {
		o->cmd = xcalloc((size_t)nop, sizeof(*o->cmd));
		memcpy(o->cmd, argv + 2, (size_t)(nop - 1) * sizeof(*o->cmd));
	}
	if (mon_opts_check(o) < 0)
		return cli_usage_error("monitor", "%s", err_msg());
	return 0;
}

static void on_signal(int sig)
{
	UNUSED(sig);
	mon_stop = 1;
}

/* The monitor's notes and warnings, one a line. */
static void say(void *arg, const char *line)
{
	UNUSED(arg);
	fflush(stdout);
	fprintf(stderr, "%s\n", line);
}

/* --profile: `veles collect monitor ... -- CMD`; exits with CMD's status,
 * as `veles monitor -- CMD`. */
static int monitor_profile(struct cli_ctx *ctx, const struct mon_run_opts *o)
{
	struct collect_env env = {0};
	struct mon_profile_args a;
	char head[41];
	int ret, status = 0;

	if (mon_profile_args(o, &a) < 0)
		return cli_usage_error("monitor", "%s", err_msg());
	if (cli_open_project(ctx) < 0) {
		mon_profile_args_release(&a);
		return cli_fail();
	}
	env.jobs_dir = ctx->jobs_dir;
	env.logs_dir = ctx->logs_dir;
	env.cmd_status = &status;
	env.message = cli_collect_message;
	if (cli_head(ctx, head))
		env.origin = head;
	ret = collect_main(&env, a.argc, a.argv);
	mon_profile_args_release(&a);
	if (ret < 0) {
		cli_fail();
		return ret == ERR_INVALID ? 2 : 1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The loops, until -c, Ctrl-C or the command's end; CMD's exit status. */
static int run(struct mon_run_opts *o)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (mon_run(o) < 0)
		return cli_fail();
	if (!o->cmd)
		return 0;
	return WIFEXITED(*o->cmd_status) ? WEXITSTATUS(*o->cmd_status)
					 : 128 + WTERMSIG(*o->cmd_status);
}

int cmd_monitor(struct cli_ctx *ctx, int argc, char **argv)
{
	struct mon_run_opts o = {
		.letters = NULL, .interval = 1, .count = -1, .sep = ' ', .out = stdout, .say = say};
	int status = 0, rc = parse_args(argc, argv, &o);

	o.cmd_status = &status;
	if (rc == 0)
		rc = o.profile ? monitor_profile(ctx, &o) : run(&o);
	else if (rc == 1)
		rc = 0;
	free(o.cmd);
	return rc;
}
