/*
 * veles fuzz [OPTIONS] -i SEEDS -- COMMAND [ARGS...]: performance fuzzing
 * of a program's input (docs/cli/fuzz.md). The options, the signals and
 * the profile's place; the fuzzing itself is src/fuzz/.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/fuzz-print.h"
#include "fuzz/fuzz.h"
#include "util/common.h"
#include "vcs/vcs.h"

#define FUZZ_USAGE "usage: veles fuzz [OPTIONS] -i SEEDS [-i SEEDS...] -- COMMAND [ARGS...]"

static void fuzz_usage(void)
{
	printf(FUZZ_USAGE
	       "\n\n"
	       "Performance fuzzing: mutates the seed inputs, runs COMMAND on each mutant,\n"
	       "keeps the mutants that cost more or reach new code, and reports the\n"
	       "costliest inputs found, their cost against the seeds' and how the cost\n"
	       "grows with the input's length (a profile in .veles/jobs/ for\n"
	       "`veles postprocess PROFILE regression-analysis`).\n"
	       "\n"
	       "The input is a file: `@@` in an argument (or an argument `%%s`) is its\n"
	       "path; without one it is COMMAND's stdin. The cost is instructions:u where\n"
	       "the PMU counts them, else the task-clock CPU time. A program built with\n"
	       "`clang $(veles cflags fuzz --link)` also reports its edge counts, and\n"
	       "mutants that pass an edge more often than any before are kept (PerfFuzz).\n"
	       "\n"
	       "  -i, --input PATH          a seed file, or a directory of them (repeat)\n"
	       "  -o, --output-dir DIR      corpus/, worst/, crashes/, hangs/ and the state;\n"
	       "                            default .veles/fuzz/PROGRAM; an existing one is\n"
	       "                            resumed (then -i may be left out)\n"
	       "  -t, --time DURATION       fuzz this long: 90, 90s, 15m, 2h (default 30m)\n"
	       "  -n, --runs N              stop after N runs of COMMAND\n"
	       "      --timeout S           a run longer than S seconds is a hang (default\n"
	       "                            50 times the slowest seed's time, at least 1 s)\n"
	       "      --seed N              the random seed: the same one makes the same\n"
	       "                            mutants (default: a fresh one, shown)\n"
	       "      --dict FILE           tokens to insert (AFL's format, or one a line)\n"
	       "  -N, --max-size BYTES      no mutant longer than this; default 4 times the\n"
	       "                            largest seed (and 1024 bytes more at least)\n"
	       "      --max-size-ratio R    ... the largest seed times R instead\n"
	       "      --max-size-increase B ... the largest seed plus B bytes instead\n"
	       "  -m, --metric NAME         auto, instructions, task-clock, rusage, or hits\n"
	       "                            (edges passed, from an instrumented build)\n"
	       "      --no-feedback         plain random mutation of the seeds: nothing is\n"
	       "                            kept (a baseline to compare with)\n"
	       "      --no-coverage         ignore the edge counts of an instrumented build\n"
	       "      --no-profile          write no profile to .veles/jobs/\n"
	       "      --format FMT          the report as text (default) or json\n"
	       "  -q, --quiet               no progress on stderr\n"
	       "  -h, --help                this help\n");
}

enum {
	OPT_TIMEOUT = 0x100,
	OPT_SEED,
	OPT_DICT,
	OPT_RATIO,
	OPT_INCREASE,
	OPT_NO_FEEDBACK,
	OPT_NO_COVERAGE,
	OPT_NO_PROFILE,
	OPT_FORMAT,
};

struct fuzz_args {
	struct fz_options o;
	const char **inputs;
	size_t ninputs;
	enum out_format format;
	bool quiet, no_profile;
};

static volatile sig_atomic_t stop_flag;
static struct timespec stop_time;

static void on_signal(int sig)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	/* A second Ctrl-C does not wait for the report; one signal delivered
	 * twice (to the process and to its group, as timeout(1) may) is not a
	 * second one. */
	if (stop_flag && now.tv_sec - stop_time.tv_sec >= 1)
		_exit(128 + sig);
	if (!stop_flag) {
		stop_time = now;
		stop_flag = sig;
	}
}

/* "90", "90s", "1.5m", "2h" into seconds; -1 when it is none of those. */
static double parse_duration(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0) || !isfinite(v))
		return -1;
	if (*end == 'm')
		v *= 60, end++;
	else if (*end == 'h')
		v *= 3600, end++;
	else if (*end == 's')
		end++;
	return *end ? -1 : v;
}

static int parse_bytes(const char *opt, const char *v, size_t *out)
{
	unsigned long n;

	if (cli_parse_uint("fuzz", opt, v, &n) < 0)
		return -1;
	if (n == 0)
		return cli_usage_error("fuzz", "%s needs at least 1 byte, not '%s'", opt, v), -1;
	*out = n;
	return 0;
}

static int parse_option(struct fuzz_args *a, int c, char **argv)
{
	struct fz_options *o = &a->o;
	unsigned long n;
	char *end;
	double d;
	int m;

	switch (c) {
	case 'i':
		a->inputs = xrealloc(a->inputs, (a->ninputs + 1) * sizeof(*a->inputs));
		a->inputs[a->ninputs++] = optarg;
		return 0;
	case 'o':
		o->out_dir = optarg;
		return 0;
	case 't':
		o->time_limit = parse_duration(optarg);
		return o->time_limit > 0 ? 0
					 : cli_usage_error("fuzz",
							   "--time needs a duration such as "
							   "90, 90s, 15m or 2h, not '%s'",
							   optarg);
	case 'n':
		if (cli_parse_uint("fuzz", "--runs", optarg, &n) < 0)
			return 2;
		if (!n)
			return cli_usage_error("fuzz", "--runs needs at least 1, not '%s'", optarg);
		o->run_limit = n;
		return 0;
	case OPT_TIMEOUT:
		d = parse_duration(optarg);
		if (!(d > 0))
			return cli_usage_error("fuzz",
					       "--timeout needs a positive number of "
					       "seconds, not '%s'",
					       optarg);
		o->timeout = d;
		return 0;
	case OPT_SEED:
		if (cli_parse_uint("fuzz", "--seed", optarg, &n) < 0)
			return 2;
		o->seed = n;
		o->seed_set = true;
		return 0;
	case OPT_DICT:
		o->dict_path = optarg;
		return 0;
	case 'N':
		return parse_bytes("--max-size", optarg, &o->max_size) < 0 ? 2 : 0;
	case OPT_RATIO:
		errno = 0;
		o->max_size_ratio = strtod(optarg, &end);
		if (errno || end == optarg || *end || !(o->max_size_ratio >= 1) ||
		    !isfinite(o->max_size_ratio))
			return cli_usage_error("fuzz",
					       "--max-size-ratio needs a number of at "
					       "least 1, not '%s'",
					       optarg);
		return 0;
	case OPT_INCREASE:
		if (cli_parse_uint("fuzz", "--max-size-increase", optarg, &n) < 0)
			return 2;
		o->max_size_increase = n;
		o->max_size_increase_set = true;
		return 0;
	case 'm':
		m = fz_metric_from_name(optarg);
		if (m < 0)
			return cli_usage_error("fuzz",
					       "--metric is auto, instructions, task-clock, "
					       "rusage or hits, not '%s'",
					       optarg);
		o->metric = (enum fz_metric)m;
		return 0;
	case OPT_NO_FEEDBACK:
		o->feedback = false;
		return 0;
	case OPT_NO_COVERAGE:
		o->coverage = false;
		return 0;
	case OPT_NO_PROFILE:
		a->no_profile = true;
		return 0;
	case OPT_FORMAT:
		return cli_parse_format("fuzz", optarg, &a->format) < 0 ? 2 : 0;
	case 'q':
		a->quiet = true;
		return 0;
	default:
		return cli_bad_option("fuzz", argv);
	}
}

static int parse_args(struct fuzz_args *a, int argc, char **argv)
{
	static const struct option opts[] = {
		{"help", no_argument, NULL, 'h'},
		{"input", required_argument, NULL, 'i'},
		{"input-sample", required_argument, NULL, 'i'},
		{"output-dir", required_argument, NULL, 'o'},
		{"time", required_argument, NULL, 't'},
		{"runs", required_argument, NULL, 'n'},
		{"timeout", required_argument, NULL, OPT_TIMEOUT},
		{"hang-timeout", required_argument, NULL, OPT_TIMEOUT},
		{"seed", required_argument, NULL, OPT_SEED},
		{"dict", required_argument, NULL, OPT_DICT},
		{"max-size", required_argument, NULL, 'N'},
		{"max-size-ratio", required_argument, NULL, OPT_RATIO},
		{"max-size-increase", required_argument, NULL, OPT_INCREASE},
		{"metric", required_argument, NULL, 'm'},
		{"no-feedback", no_argument, NULL, OPT_NO_FEEDBACK},
		{"no-coverage", no_argument, NULL, OPT_NO_COVERAGE},
		{"no-profile", no_argument, NULL, OPT_NO_PROFILE},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"quiet", no_argument, NULL, 'q'},
		{NULL, 0, NULL, 0},
	};
	int c, ret;

	a->o.feedback = true;
	a->o.coverage = true;
	a->o.metric = FZ_METRIC_AUTO;
	while ((c = getopt_long(argc, argv, "+hi:o:t:n:N:m:q", opts, NULL)) != -1) {
		if (c == 'h')
			continue;
		ret = parse_option(a, c, argv);
		if (ret)
			return ret;
	}
	if (optind >= argc)
		return cli_usage_error("fuzz",
				       "no command to fuzz (veles fuzz -i SEEDS -- CMD...)");
	a->o.argv = argv + optind;
	if (!a->o.time_limit && !a->o.run_limit)
		a->o.time_limit = 30 * 60;
	if (a->o.max_size && (a->o.max_size_ratio > 0 || a->o.max_size_increase_set))
		return cli_usage_error("fuzz", "--max-size, --max-size-ratio and "
					       "--max-size-increase exclude each other");
	if (a->o.max_size_ratio > 0 && a->o.max_size_increase_set)
		return cli_usage_error("fuzz", "--max-size-ratio and --max-size-increase exclude "
					       "each other");
	return 0;
}

/* .veles/fuzz/PROGRAM: the program's base name, made safe for a path. */
static char *default_out(const struct cli_ctx *ctx, const char *prog)
{
	const char *base = strrchr(prog, '/');
	char *name, *out;

	name = xstrdup(base ? base + 1 : prog);
	for (char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("._+-", *p)))
			*p = '_';
	if (name[0] == '.' || !name[0]) {
		char *n = xasprintf("_%s", name);

		free(name);
		name = n;
	}
	out = xasprintf("%s/fuzz/%s", ctx->veles_dir, name);
	free(name);
	return out;
}

/* The version measured, as `veles collect` finds it (without libgit2
 * when git's own files tell). */
static bool find_origin(struct cli_ctx *ctx, char head[41])
{
	if (vcs_quick_head(ctx->root, head) == 0)
		return true;
	if (cli_open_vcs(ctx) < 0) {
		err_clear();
		return false;
	}
	return cli_head(ctx, head);
}

static int write_profile(struct cli_ctx *ctx, struct fz_report *rep, char **path)
{
	char head[41];
	bool has = find_origin(ctx, head);

	if (!has)
		cli_warn("no version yet: the profile will have no origin");
	if (fz_save_profile(rep->profile, ctx->jobs_dir, has ? head : NULL, path) < 0)
		return cli_fail();
	return 0;
}

static int run(struct cli_ctx *ctx, struct fuzz_args *a, bool in_project)
{
	struct fuzz_view view = {.tty = ctx->stderr_tty, .quiet = a->quiet};
	struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
	struct fz_report rep;
	char *profile_path = NULL;
	int ret;

	a->o.progress = fuzz_progress;
	a->o.progress_arg = &view;
	a->o.stop = &stop_flag;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	ret = fz_run(&a->o, &rep);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	fuzz_progress_end(&view);
	if (ret < 0) {
		cli_fail();
		if (ret == ERR_INTERRUPTED)
			return 128 + (stop_flag ? stop_flag : SIGINT);
		return ret == ERR_INVALID || ret == ERR_NOTFOUND ? 2 : 1;
	}
	if (in_project && !a->no_profile && write_profile(ctx, &rep, &profile_path) != 0) {
		fz_report_release(&rep);
		return 1;
	}
	if (a->format == FORMAT_JSON)
		fuzz_print_json(stdout, &rep, profile_path);
	else
		fuzz_print_text(stdout, &rep, profile_path);
	free(profile_path);
	fz_report_release(&rep);
	return 0;
}

int cmd_fuzz(struct cli_ctx *ctx, int argc, char **argv)
{
	struct fuzz_args a;
	char *out = NULL;
	bool in_project;
	int ret;

	if (cli_wants_help(argc, argv)) {
		fuzz_usage();
		return 0;
	}
	memset(&a, 0, sizeof(a));
	ret = parse_args(&a, argc, argv);
	if (ret) {
		free(a.inputs);
		return ret;
	}
	a.o.inputs = a.inputs;
	a.o.ninputs = a.ninputs;
	in_project = cli_find_root(ctx) == 0;
	err_clear();
	if (!a.o.out_dir && !in_project) {
		free(a.inputs);
		return cli_usage_error("fuzz", "not in a Veles project: give the output directory "
					       "with -o DIR");
	}
	if (!a.o.out_dir)
		a.o.out_dir = out = default_out(ctx, a.o.argv[0]);
	if (a.no_profile)
		in_project = false;
	ret = run(ctx, &a, in_project);
	free(out);
	free(a.inputs);
	return ret;
}
