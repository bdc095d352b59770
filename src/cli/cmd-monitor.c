/*
 * veles monitor: samples the system from /proc at an interval and prints
 * rates (brief, verbose or plot), records raw samples with -f, plays a
 * recording back with -p. Option letters follow collectl's.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli/cli.h"
#include "collect/collector.h"
#include "monitor/export.h"
#include "monitor/modules.h"
#include "monitor/procs.h"
#include "monitor/run.h"
#include "monitor/view.h"
#include "util/common.h"

static void monitor_usage(void)
{
	char *dirs;

	printf("usage: veles monitor [-s SUBSYSTEMS] [-i INTERVAL] [-c COUNT] [options]\n"
	       "       veles monitor [options] [--profile] -- COMMAND [ARGS...]\n"
	       "\n"
	       "Samples the system from /proc every INTERVAL seconds and prints counters as\n"
	       "rates per second: one line per interval (brief), a section per subsystem\n"
	       "(verbose) or plot lines. Letters follow collectl's.\n"
	       "\n"
	       "  -s, --subsys LETTERS  subsystems (default cdn; playing back, the recorded\n"
	       "                        ones; with --profile, cdmn): c cpu, C per cpu and\n"
	       "                        its clock, d disks, D per disk, m memory, n network,\n"
	       "                        N per interface, j interrupts, J per interrupt,\n"
	       "                        s sockets, f nfs client, z process counts and load,\n"
	       "                        Z each process\n"
	       "  -i, --interval SECS   seconds between samples, fractions allowed (default 1;\n"
	       "                        0 samples back to back)\n"
	       "  -c, --count N         stop after N intervals (default: until interrupted)\n"
	       "      --verbose         a section per subsystem (details imply it)\n"
	       "  -P, --plot            one line per interval with a header, for plotting\n"
	       "      --sep CHAR        plot separator (default a space)\n"
	       "      --hr N            brief and verbose headings every N intervals (0:\n"
	       "                        once; default: brief once, verbose every record)\n"
	       "      --on              counters per interval instead of per second\n"
	       "  -f, --filename FILE   record raw samples to FILE (compressed); prints\n"
	       "                        nothing unless -P or --export is given too\n"
	       "  -p, --playback FILE   play back a recording in any output format\n"
	       "  -d, --debug N         N >= 4: show each sample as it is recorded\n"
	       "      --self            print the cpu time used per sample on exit\n"
	       "      --import F[,OPTS][:F2...]\n"
	       "                        load import modules (shared objects): hello, misc,\n"
	       "                        gpu or your own; a bare NAME is the first NAME.so\n"
	       "                        in $VELES_MODULE_PATH, then the modules built with\n"
	       "                        this veles (its build tree's plugins/, or LIBDIR/\n"
	       "                        veles/monitor beside an installed tree that was\n"
	       "                        moved), then the installed modules (see below)\n"
	       "      --export KIND     send values instead of printing a table:\n"
	       "                        lexpr[,HOST:PORT] (\"name value\" lines),\n"
	       "                        graphite,HOST:PORT (plaintext protocol),\n"
	       "                        prometheus,[ADDR:]PORT (serves /metrics on\n"
	       "                        127.0.0.1, or on ADDR: 0.0.0.0 for every IPv4\n"
	       "                        address, [::1] in brackets for IPv6)\n"
	       "      --procfilt LIST   -s Z: only processes matching one of cNAME (command\n"
	       "                        contains), CPREFIX, pPID, PPPID (parent), uUSER, UUID\n"
	       "      --top [FIELD][,N] -s Z: the N (20) processes highest in FIELD: time\n"
	       "                        (cpu, the default), syst, usrt, accum, vsz, rss,\n"
	       "                        majf, minf, flt\n"
	       "      --proc DIR        read DIR instead of /proc, DIR/sys instead of /sys\n"
	       "                        (saved files)\n"
	       "      --profile         with -- COMMAND: write the summary values of each\n"
	       "                        interval (and of --import modules) as a Veles\n"
	       "                        profile in .veles/jobs/; takes -s, -i, -c, --on\n"
	       "\n"
	       "With -- COMMAND, runs COMMAND and samples until it exits; the exit status\n"
	       "is COMMAND's.\n");
	/* The search order made concrete: the directories as this veles sees them. */
	dirs = mon_module_dirs();
	printf("\nModules are looked up in: %s\n", dirs);
	free(dirs);
}

enum {
	OPT_SEP = 256,
	OPT_ON,
	OPT_VERBOSE,
	OPT_SELF,
	OPT_PROC,
	OPT_IMPORT,
	OPT_EXPORT,
	OPT_PROFILE,
	OPT_PROCFILT,
	OPT_TOP,
	OPT_HR
};

static int parse_interval(const char *v, double *out)
{
	char *end;

	*out = strtod(v, &end);
	if (end == v || *end || !(*out >= 0) || *out > 86400)
		return cli_usage_error("monitor", "bad interval '%s' (seconds, e.g. 0.5)", v);
	return 0;
}

static int check_export(const char *spec, struct mon_run_opts *o)
{
	struct mon_export e;
	int rc = mon_export_parse(&e, spec);

	mon_export_close(&e);
	if (rc < 0)
		return cli_usage_error("monitor", "%s", err_msg());
	o->export_spec = spec;
	return 0;
}

/* --procfilt and --top, checked as the run will parse them. */
static int check_procsel(const char *filt, const char *top)
{
	struct mon_procsel sel = {.sort = -1};

	if ((filt && mon_procsel_filter(&sel, filt) < 0) || (top && mon_procsel_top(&sel, top) < 0))
		return cli_usage_error("monitor", "%s", err_msg());
	return 0;
}

/* One option; returns 0, 1 after --help, or an exit status. */
static int apply(int c, const char *arg, struct mon_run_opts *o, char **argv)
{
	unsigned long n;

	switch (c) {
	case 's':
		o->letters = arg;
		return 0;
	case 'i':
		return parse_interval(arg, &o->interval) ? 2 : 0;
	case 'c':
		if (cli_parse_uint("monitor", "--count", arg, &n) < 0)
			return 2;
		o->count = (long)n;
		return 0;
	case 'P':
		o->format = MON_PLOT;
		return 0;
	case OPT_VERBOSE:
		o->format = MON_VERBOSE;
		return 0;
	case OPT_SEP:
		if (strlen(arg) != 1)
			return cli_usage_error("monitor", "--sep takes one character");
		o->sep = arg[0];
		return 0;
	case OPT_ON:
		o->per_interval = true;
		return 0;
	case 'f':
		o->record = arg;
		return 0;
	case 'p':
		o->playback = arg;
		return 0;
	case 'd':
		if (cli_parse_uint("monitor", "--debug", arg, &n) < 0)
			return 2;
		o->debug = (int)n;
		return 0;
	case OPT_SELF:
		o->self = true;
		return 0;
	case OPT_PROC:
		o->proc_root = arg;
		return 0;
	case OPT_IMPORT:
		o->imports = arg;
		return 0;
	case OPT_EXPORT:
		return check_export(arg, o);
	case OPT_PROFILE:
		o->profile = true;
		return 0;
	case OPT_PROCFILT:
		o->procfilt = arg;
		return check_procsel(arg, NULL) ? 2 : 0;
	case OPT_HR:
		if (cli_parse_uint("monitor", "--hr", arg, &n) < 0)
			return 2;
		o->hr_set = true;
		o->hr = n;
		return 0;
	case OPT_TOP:
		o->top = arg;
		return check_procsel(NULL, arg) ? 2 : 0;
	case 'h':
		monitor_usage();
		return 1;
	default:
		return cli_bad_option("monitor", argv);
	}
}

static int parse_args(int argc, char **argv, struct mon_run_opts *o)
{
	static const struct option opts[] = {
		{"subsys", required_argument, NULL, 's'},
		{"interval", required_argument, NULL, 'i'},
		{"count", required_argument, NULL, 'c'},
		{"plot", no_argument, NULL, 'P'},
		{"verbose", no_argument, NULL, OPT_VERBOSE},
		{"sep", required_argument, NULL, OPT_SEP},
		{"on", no_argument, NULL, OPT_ON},
		{"filename", required_argument, NULL, 'f'},
		{"playback", required_argument, NULL, 'p'},
		{"debug", required_argument, NULL, 'd'},
		{"self", no_argument, NULL, OPT_SELF},
		{"proc", required_argument, NULL, OPT_PROC},
		{"import", required_argument, NULL, OPT_IMPORT},
		{"export", required_argument, NULL, OPT_EXPORT},
		{"profile", no_argument, NULL, OPT_PROFILE},
		{"procfilt", required_argument, NULL, OPT_PROCFILT},
		{"top", required_argument, NULL, OPT_TOP},
		{"hr", required_argument, NULL, OPT_HR},
		{"headerrepeat", required_argument, NULL, OPT_HR},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, rc;

	while ((c = getopt_long(argc, argv, "+s:i:c:Pf:p:d:h", opts, NULL)) != -1)
		if ((rc = apply(c, optarg, o, argv)) != 0)
			return rc;
	if (optind < argc && strcmp(argv[optind - 1], "--"))
		return cli_usage_error("monitor",
				       "unexpected argument '%s' (a command goes after --)",
				       argv[optind]);
	if (optind < argc)
		o->cmd = argv + optind;
	if (o->profile && (!o->cmd || o->record || o->playback || o->export_spec))
		return cli_usage_error("monitor",
				       "--profile needs a command (-- CMD) and no -f, -p "
				       "or --export");
	if (o->cmd && o->playback)
		return cli_usage_error("monitor", "-p plays back: it runs no command");
	if (o->record && o->playback)
		return cli_usage_error("monitor", "-f and -p do not go together");
	if (o->letters && !o->letters[0])
		return cli_usage_error("monitor", "-s needs at least one subsystem");
	for (const char *p = o->letters ? o->letters : ""; *p; p++)
		if (!mon_view_find(*p))
			return cli_usage_error("monitor", "unknown subsystem '%c' (one of %s)", *p,
					       mon_view_letters());
	if ((o->procfilt || o->top) && o->letters && !strchr(o->letters, 'Z'))
		return cli_usage_error("monitor", "--procfilt and --top go with -s Z");
	return 0;
}

static void on_signal(int sig)
{
	UNUSED(sig);
	mon_stop = 1;
}

/* --profile: `veles collect monitor -s LETTERS -i SECS [-c N] [--on]
 * [--import SPEC] -- CMD`, the summary letters only (details have no single
 * value per interval). Exits with CMD's status, as `veles monitor -- CMD`. */
static int monitor_profile(struct cli_ctx *ctx, const struct mon_run_opts *o)
{
	struct collect_env env = {0};
	char letters[64], interval[32], count[32], head[41];
	size_t n = 0, nargs = 0, k = 0;
	char **args;
	int ret, status = 0;

	if (o->format != MON_BRIEF || o->sep != ' ' || o->debug || o->self || o->proc_root)
		return cli_usage_error("monitor", "--profile prints no table: -P, --verbose, "
						  "--sep, -d, --self and --proc do not go with it");
	if (!(o->interval > 0))
		return cli_usage_error("monitor", "--profile needs an interval above 0");
	for (const char *p = o->letters ? o->letters : "cdmn"; *p && n < sizeof(letters) - 1; p++)
		if (!mon_view_find(*p)->detail)
			letters[n++] = *p;
	letters[n] = '\0';
	if (!n)
		return cli_usage_error("monitor",
				       "--profile needs a summary subsystem (lowercase)");
	if (cli_open_project(ctx) < 0)
		return cli_fail();
	snprintf(interval, sizeof(interval), "%.17g", o->interval);
	snprintf(count, sizeof(count), "%ld", o->count);
	while (o->cmd[nargs])
		nargs++;
	args = xcalloc(nargs + 13, sizeof(*args));
	args[k++] = "monitor";
	args[k++] = "-s";
	args[k++] = letters;
	args[k++] = "-i";
	args[k++] = interval;
	if (o->count >= 0) {
		args[k++] = "-c";
		args[k++] = count;
	}
	if (o->per_interval)
		args[k++] = "--on";
	if (o->imports) {
		args[k++] = "--import";
		args[k++] = (char *)o->imports;
	}
	args[k++] = "--";
	memcpy(args + k, o->cmd, nargs * sizeof(*args));
	env.jobs_dir = ctx->jobs_dir;
	env.logs_dir = ctx->logs_dir;
	env.cmd_status = &status;
	env.message = cli_collect_message;
	if (cli_head(ctx, head))
		env.origin = head;
	ret = collect_main(&env, (int)(k + nargs), args);
	free(args);
	if (ret < 0) {
		cli_fail();
		return ret == ERR_INVALID ? 2 : 1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int cmd_monitor(struct cli_ctx *ctx, int argc, char **argv)
{
	struct mon_run_opts o = {
		.letters = NULL, .interval = 1, .count = -1, .sep = ' ', .out = stdout};
	struct sigaction sa = {.sa_handler = on_signal};
	int status = 0, rc = parse_args(argc, argv, &o);

	if (rc)
		return rc == 1 ? 0 : rc;
	if (o.profile)
		return monitor_profile(ctx, &o);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	o.cmd_status = &status;
	if (mon_run(&o) < 0)
		return cli_fail();
	if (!o.cmd)
		return 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
