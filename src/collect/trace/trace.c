/*
 * veles collect trace --instrumented: runs a program built with
 * `veles cflags trace` with libveles-trace.so preloaded, reads the records
 * it wrote to a temporary directory, names the functions and writes the
 * trace profile (docs/collect-trace.md).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "collect/collector.h"
#include "collect/trace/trace-dynamic.h"
#include "collect/trace/trace-read.h"
#include "collect/trace/trace-sym.h"
#include "collect/trace/trace.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "util/spawn.h"
#include "util/tmpdir.h"

struct trace_state {
	struct trace_opts o;
	bool instrumented, dynamic, keep, zip, no_profile, sampling_set;
	bool watchdog;
	char *runtime;
	char *size_env;	   /* --size in the instrumented mode: VELES_TRACE_SIZE */
	char *dir;	   /* the runtime's output (or the raw samples), a temporary directory */
	struct tmpdir tmp; /* dir's owner while the collection runs (util/tmpdir.h) */
	FILE *watch;	   /* -w: the collection's log */
	char *watch_path;
	struct trace_data data;
	struct sym_cache syms;
	struct spawn_result run;
};

enum {
	OPT_INSTRUMENTED = 0x200,
	OPT_AGGREGATE,
	OPT_SIZE,
	OPT_WITH_USDT,
	OPT_NO_USDT,
	OPT_NO_PROFILE,
};

/* How many calls u_sampled and a_sampled keep: every SAMPLED_DEFAULT-th. */
#define SAMPLED_DEFAULT 20

static void trace_usage(void)
{
	printf("usage: veles collect trace --instrumented [OPTIONS] -- COMMAND [ARGS...]\n"
	       "       veles collect trace [-d] [-s STRATEGY] [-f FUNC...] [-u PROBE...]\n"
	       "                           [OPTIONS] -- COMMAND [ARGS...]\n"
	       "\n"
	       "Runs COMMAND and records how long each call of each of its functions took\n"
	       "(inclusive and exclusive time), in which thread and in which order, and the\n"
	       "time between USDT probes. One resource per call, keyed by function.\n"
	       "\n"
	       "      --instrumented       COMMAND is built with `veles cflags trace` (or its\n"
	       "                           --pg, the mcount build): the trace runtime records\n"
	       "                           every function it compiled\n"
	       "  -d, --dynamic            uprobes on the unmodified binary (the default when\n"
	       "                           -s, -f, -u, -b or -l is given); needs root\n"
	       "      --aggregate          sums per function and thread (calls, inclusive and\n"
	       "                           exclusive time, min, max, a histogram) instead of\n"
	       "                           every call; `veles show PROFILE histogram` draws it\n"
	       "  -s, --strategy S         userspace (every function of the binary), all (and\n"
	       "                           of its libraries), u_sampled, a_sampled (the same,\n"
	       "                           every 20th call), custom (-f and -u only; default)\n"
	       "  -f, --func [LIB#]FUNC[#N]  trace FUNC (in LIB), every Nth call (repeatable);\n"
	       "                           a C++ FUNC mangled or demangled, without its\n"
	       "                           parameters for every overload (ns::C::f)\n"
	       "  -u, --usdt [LIB#]PROBE[#N] trace a USDT probe: to PROBE_end (_END; or from\n"
	       "                           X_begin/X_start to X_end), else from hit to hit;\n"
	       "                           START#END pairs two explicitly (repeatable)\n"
	       "      --with-usdt, --no-usdt  a strategy probes every USDT probe too (default)\n"
	       "  -g, --global-sampling N  keep every Nth call of each function (default 1)\n"
	       "  -b, --binary PATH        the binary whose functions are probed (default:\n"
	       "                           COMMAND's executable)\n"
	       "  -l, --libs LIB           a library probed too, with a strategy; where -f\n"
	       "                           looks for what the binary lacks (repeatable)\n"
	       "      --size FUNC:ARGN     each call's structure-unit-size is FUNC's ARGN-th\n"
	       "                           integer argument (1-6; a USDT probe's: 1-12);\n"
	       "                           dynamic: FUNC is probed too; instrumented: the\n"
	       "                           --pg build only, every function still recorded\n"
	       "      --size 'FUNC:ARG->member'  ... or a member of what ARG points to (DWARF)\n"
	       "  -t, --timeout S          stop COMMAND after S seconds (SIGTERM, then SIGKILL\n"
	       "                           2 s later) and keep the calls it finished\n"
	       "  -k, --keep-temps         keep the raw records and say where they are\n"
	       "  -z, --zip-temps          keep them gzip-compressed (implies -k)\n"
	       "  -w, --watchdog           log each step of the collection to .veles/logs/\n"
	       "  -i, --diagnostics        -w, -z and --output-handling capture together\n"
	       "  -np, --no-profile        collect and summarise, but write no profile\n"
	       "\n");
	collect_common_usage();
}

/* Splits "A#B#C" at '#': at most @max parts, each non-empty. */
static size_t split_hash(const char *arg, char **parts, size_t max)
{
	char *copy = xstrdup(arg), *save = NULL;
	size_t n = 0;
	bool bad = false;

	for (char *t = strtok_r(copy, "#", &save); t; t = strtok_r(NULL, "#", &save)) {
		if (n == max) {
			bad = true;
			break;
		}
		parts[n++] = xstrdup(t);
	}
	bad |= !*arg || arg[0] == '#' || strstr(arg, "##") || arg[strlen(arg) - 1] == '#';
	free(copy);
	if (!bad)
		return n;
	while (n)
		free(parts[--n]);
	return 0;
}

static bool looks_like_lib(const char *s)
{
	return strchr(s, '/') || strstr(s, ".so");
}

/* [LIB#]NAME[#END][#SAMPLE] into @r (END only when @pairs). */
static int parse_location(const char *opt, const char *arg, bool pairs, struct trace_rule *r)
{
	char *p[4] = {0};
	size_t n = split_hash(arg, p, 4), i = 0;
	int ret = 0;

	*r = (struct trace_rule){0};
	if (n > 1 && str_all_digits(p[n - 1])) {
		ret = collect_parse_count("trace", opt, p[n - 1], 1, &r->sample);
		free(p[--n]);
	}
	if (ret == 0 && (n == 3 || (n == 2 && (!pairs || looks_like_lib(p[0])))))
		r->lib = p[i++];
	if (ret == 0 && n - i == 1)
		r->func = p[i++];
	else if (ret == 0 && pairs && n - i == 2) {
		r->func = p[i++];
		r->end = p[i++];
	}
	if (ret == 0 && (!r->func || i != n))
		ret = err_set(ERR_INVALID, "collect trace: %s is %s, not '%s'", opt,
			      pairs ? "[LIB#]PROBE[#END][#N]" : "[LIB#]FUNC[#N]", arg);
	for (; i < n; i++)
		free(p[i]);
	if (ret < 0) {
		free(r->lib);
		free(r->func);
		free(r->end);
		*r = (struct trace_rule){0};
	}
	return ret;
}

static void rule_free(struct trace_rule *r)
{
	free(r->func);
	free(r->lib);
	free(r->end);
}

static void add_rule(struct trace_rule **v, size_t *n, const struct trace_rule *r)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = *r;
}

/* "FUNC:ARGN" or "FUNC:ARG->member"; FUNC is traced too (in the dynamic
 * mode: see drop_implicit). */
static int parse_size(struct trace_opts *o, const char *arg)
{
	const char *colon = strchr(arg, ':'), *arrow = colon ? strstr(colon, "->") : NULL;
	struct trace_size z = {0};
	long n = 0;
	bool traced = false;

	if (colon && arrow && arrow > colon + 1 && arrow[2]) {
		z.arg = xstrndup(colon + 1, (size_t)(arrow - colon - 1));
		z.member = xstrdup(arrow + 2);
	} else if (!colon || colon == arg ||
		   collect_parse_count("trace", "--size's ARGN", colon + 1, 1, &n) < 0 || n > 12)
		return err_set(ERR_INVALID,
			       "collect trace: --size is FUNC:ARGN with ARGN from 1 to 6 (12 for "
			       "a USDT probe) or FUNC:ARG->member, not '%s'",
			       arg);
	if (colon == arg)
		return err_set(ERR_INVALID, "collect trace: --size needs a function, not '%s'",
			       arg);
	z.func = xstrndup(arg, (size_t)(colon - arg));
	z.argn = (int)n;
	o->sizes = xrealloc(o->sizes, (o->nsizes + 1) * sizeof(*o->sizes));
	o->sizes[o->nsizes++] = z;
	for (size_t i = 0; i < o->nrules; i++)
		traced |= strcmp(o->rules[i].func, z.func) == 0;
	for (size_t i = 0; i < o->nusdts; i++)
		traced |= strcmp(o->usdts[i].func, z.func) == 0;
	if (!traced)
		add_rule(&o->rules, &o->nrules,
			 &(struct trace_rule){.func = xstrdup(z.func), .implicit = true});
	return 0;
}

static int parse_strategy(struct trace_state *st, const char *arg)
{
	static const struct {
		const char *name;
		enum trace_strategy s;
		bool sampled;
	} strategies[] = {
		{"custom", STRATEGY_CUSTOM, false}, {"userspace", STRATEGY_USERSPACE, false},
		{"all", STRATEGY_ALL, false},	    {"u_sampled", STRATEGY_USERSPACE, true},
		{"a_sampled", STRATEGY_ALL, true},
	};

	for (size_t i = 0; i < ARRAY_SIZE(strategies); i++)
		if (strcmp(arg, strategies[i].name) == 0) {
			st->o.strategy = strategies[i].s;
			st->o.sampled = strategies[i].sampled;
			st->o.userspace = st->o.strategy != STRATEGY_CUSTOM;
			return 0;
		}
	return err_set(ERR_INVALID,
		       "collect trace: --strategy is userspace, all, u_sampled, a_sampled or "
		       "custom, not '%s'",
		       arg);
}

static int parse_rule_opt(struct trace_state *st, int opt, const char *arg)
{
	struct trace_rule r;
	bool usdt = opt == 'u';
	int ret = parse_location(usdt ? "--usdt" : "--func", arg, usdt, &r);

	if (ret < 0)
		return ret;
	if (usdt)
		add_rule(&st->o.usdts, &st->o.nusdts, &r);
	else
		add_rule(&st->o.rules, &st->o.nrules, &r);
	return 0;
}

static int trace_flag(struct trace_state *st, int opt)
{
	switch (opt) {
	case OPT_INSTRUMENTED:
		st->instrumented = true;
		return 0;
	case OPT_AGGREGATE:
		st->o.aggregate = true;
		return 0;
	case 'd':
		st->dynamic = true;
		return 0;
	case OPT_WITH_USDT:
	case OPT_NO_USDT:
		st->o.with_usdt = opt == OPT_WITH_USDT;
		return 0;
	case OPT_NO_PROFILE:
		st->no_profile = true;
		return 0;
	case 'k':
		st->keep = true;
		return 0;
	case 'z':
		st->keep = st->zip = true;
		return 0;
	case 'w':
		st->watchdog = true;
		return 0;
	default:
		return 1;
	}
}

static int trace_option(struct collect_ctx *c, struct trace_state *st, int opt, char **argv)
{
	int ret = trace_flag(st, opt);

	if (ret <= 0)
		return ret;
	switch (opt) {
	case OPT_SIZE:
		return parse_size(&st->o, optarg);
	case 's':
		return parse_strategy(st, optarg);
	case 'f':
	case 'u':
		return parse_rule_opt(st, opt, optarg);
	case 'g':
		st->sampling_set = true;
		return collect_parse_count("trace", "--global-sampling", optarg, 1,
					   &st->o.global_sampling);
	case 'b':
		free(st->o.binary);
		st->o.binary = xstrdup(optarg);
		return 0;
	case 'l':
		st->o.libs = xrealloc(st->o.libs, (st->o.nlibs + 1) * sizeof(*st->o.libs));
		st->o.libs[st->o.nlibs++] = xstrdup(optarg);
		return 0;
	case 'i':
		st->watchdog = st->keep = st->zip = true;
		c->output = OUTPUT_CAPTURE;
		return 0;
	case 't':
		return collect_option(c, "trace", COLLECT_OPT_TIMEOUT, argv);
	default:
		return collect_option(c, "trace", opt, argv);
	}
}

/* The seed's -np is one word: getopt would read it as -n -p. */
static void seed_spellings(int argc, char **argv)
{
	static char no_profile[] = "--no-profile";

	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "-np") == 0)
			argv[i] = no_profile;
}

/*
 * The instrumented mode records every function it compiled, and -f keeps
 * only those named: --size gives FUNC's calls their size without making
 * FUNC the only function kept.
 */
static void drop_implicit(struct trace_opts *o)
{
	size_t n = 0;

	for (size_t i = 0; i < o->nrules; i++) {
		if (o->rules[i].implicit)
			rule_free(&o->rules[i]);
		else
			o->rules[n++] = o->rules[i];
	}
	o->nrules = n;
}

/* Which mode the options ask for, and what each mode refuses. */
static int check_mode(struct trace_state *st)
{
	const struct trace_opts *o = &st->o;
	bool dyn_only = o->strategy != STRATEGY_CUSTOM || o->nusdts || o->binary || o->nlibs;

	if (!st->instrumented && (dyn_only || o->nrules))
		st->dynamic = true;
	if (st->instrumented == st->dynamic)
		return err_set(ERR_INVALID, "collect trace: choose --instrumented (a program built "
					    "with `veles cflags trace`) or --dynamic");
	if (o->nsizes && o->aggregate)
		return err_set(ERR_INVALID, "collect trace: --size keeps each call's size: not "
					    "with --aggregate");
	if (st->instrumented && dyn_only)
		return err_set(ERR_INVALID,
			       "collect trace: --strategy, --usdt, --binary and --libs need "
			       "--dynamic (the instrumented mode records every function it "
			       "compiled)");
	if (st->dynamic &&
	    ((!o->nrules && !o->nusdts && o->strategy == STRATEGY_CUSTOM) || o->aggregate))
		return err_set(ERR_INVALID,
			       "collect trace: --dynamic needs -f FUNC, -u PROBE or a -s strategy "
			       "other than custom, and takes no --aggregate");
	return 0;
}

static int trace_parse(struct collect_ctx *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"instrumented", no_argument, NULL, OPT_INSTRUMENTED},
		{"aggregate", no_argument, NULL, OPT_AGGREGATE},
		{"dynamic", no_argument, NULL, 'd'},
		{"size", required_argument, NULL, OPT_SIZE},
		{"strategy", required_argument, NULL, 's'},
		{"func", required_argument, NULL, 'f'},
		{"usdt", required_argument, NULL, 'u'},
		{"with-usdt", no_argument, NULL, OPT_WITH_USDT},
		{"no-usdt", no_argument, NULL, OPT_NO_USDT},
		{"global-sampling", required_argument, NULL, 'g'},
		{"binary", required_argument, NULL, 'b'},
		{"libs", required_argument, NULL, 'l'},
		{"keep-temps", no_argument, NULL, 'k'},
		{"zip-temps", no_argument, NULL, 'z'},
		{"watchdog", no_argument, NULL, 'w'},
		{"diagnostics", no_argument, NULL, 'i'},
		{"no-profile", no_argument, NULL, OPT_NO_PROFILE},
		COLLECT_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct trace_state *st = xcalloc(1, sizeof(*st));
	int opt, ret = 0;

	st->o.global_sampling = 1;
	st->o.with_usdt = true;
	c->state = st;
	seed_spellings(argc, argv);
	while (ret == 0 && !c->help &&
	       (opt = getopt_long(argc, argv, COLLECT_SHORTOPTS "b:df:g:ikl:s:t:u:wz", longopts,
				  NULL)) != -1)
		ret = trace_option(c, st, opt, argv);
	if (ret < 0 || c->help)
		return ret;
	ret = check_mode(st);
	if (ret < 0)
		return ret;
	if (st->instrumented)
		drop_implicit(&st->o);
	if (st->o.sampled && !st->sampling_set)
		st->o.global_sampling = SAMPLED_DEFAULT;
	st->o.dynamic = st->dynamic;
	return collect_take_command(c, "trace", argc, argv);
}

void trace_watch(const struct trace_opts *o, const char *fmt, ...)
{
	struct timespec t;
	va_list ap;

	if (!o->watch)
		return;
	clock_gettime(CLOCK_REALTIME, &t);
	fprintf(o->watch, "%ld.%06ld ", (long)t.tv_sec, t.tv_nsec / 1000);
	va_start(ap, fmt);
	vfprintf(o->watch, fmt, ap);
	va_end(ap);
	fputc('\n', o->watch);
	fflush(o->watch);
}

/* -w: the log goes beside the other logs, named as the profile is. */
static int open_watchdog(struct collect_ctx *c, struct trace_state *st)
{
	const char *logs = c->env->logs_dir ? c->env->logs_dir : c->env->jobs_dir;
	int ret = mkdir_p(logs);

	if (ret < 0)
		return ret;
	st->watch_path = xasprintf("%s/%s.watchdog.log", logs, c->name);
	st->o.watch = fopen(st->watch_path, "w");
	if (!st->o.watch)
		return err_set(ERR_IO, "collect trace: cannot write %s: %s", st->watch_path,
			       strerror(errno));
	trace_watch(&st->o, "collect trace: %s mode, command %s",
		    st->dynamic ? "dynamic" : "instrumented", c->argv[0]);
	for (int i = 1; i < c->argc; i++)
		trace_watch(&st->o, "  argument %d: %s", i, c->argv[i]);
	return 0;
}

static int trace_before(struct collect_ctx *c)
{
	struct trace_state *st = c->state;
	int ret = st->watchdog ? open_watchdog(c, st) : 0;

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

/* The runtime is preloaded ahead of whatever the user preloads already. */
static void set_env(const struct trace_state *st, char **saved_preload)
{
	const char *old = getenv("LD_PRELOAD");
	char *preload = old && *old ? xasprintf("%s:%s", st->runtime, old) : xstrdup(st->runtime);

	*saved_preload = old ? xstrdup(old) : NULL;
	setenv("LD_PRELOAD", preload, 1);
	setenv("VELES_TRACE_DIR", st->dir, 1);
	setenv("VELES_TRACE_MODE", st->o.aggregate ? "aggregate" : "records", 1);
	if (st->size_env)
		setenv("VELES_TRACE_SIZE", st->size_env, 1);
	free(preload);
}

static void restore_env(char *saved_preload)
{
	if (saved_preload)
		setenv("LD_PRELOAD", saved_preload, 1);
	else
		unsetenv("LD_PRELOAD");
	unsetenv("VELES_TRACE_DIR");
	unsetenv("VELES_TRACE_MODE");
	unsetenv("VELES_TRACE_SIZE");
	free(saved_preload);
}

static int run_command(struct collect_ctx *c, struct trace_state *st)
{
	struct spawn_opts so;
	char *saved;
	int ret;

	collect_spawn_opts(c, &so);
	set_env(st, &saved);
	ret = spawn_run(c->argv, &so, &st->run);
	restore_env(saved);
	if (ret < 0)
		return ret;
	c->last_status = st->run.status;
	return 0;
}

/* -k in the dynamic mode: the paired calls, one a line, as the raw data. */
static int write_calls(struct trace_state *st)
{
	const struct trace_data *d = &st->data;
	char *path = xasprintf("%s/calls.txt", st->dir);
	FILE *f = fopen(path, "w");
	int ret = 0;

	if (!f)
		ret = err_set(ERR_IO, "collect trace: cannot write %s: %s", path, strerror(errno));
	else {
		fprintf(f, "# name pid tid order depth inclusive_ns exclusive_ns size\n");
		for (size_t i = 0; i < d->ncalls; i++) {
			const struct trace_call *k = &d->calls[i];
			uint64_t idx = k->addr & ~TRACE_NAMED;

			fprintf(f, "%s %d %d %lu %u %lu %lu %s%ld\n",
				idx < d->nnames ? d->names[idx] : "?", k->pid, k->tid,
				(unsigned long)k->order, k->depth, (unsigned long)k->incl,
				(unsigned long)k->excl, k->has_size ? "" : "-",
				k->has_size ? (long)k->size : 0L);
		}
		if (fclose(f) != 0)
			ret = err_set(ERR_IO, "collect trace: cannot write %s", path);
	}
	free(path);
	return ret;
}

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

/* The counter's rate of each process that never reached its exit (killed,
 * exec'd): from its start to now, on the same machine. */
static void calibrate_killed(struct trace_data *d)
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
static int check_calls(struct collect_ctx *c, const struct trace_state *st)
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
static void note_exit(struct profile *p, int status)
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

static int trace_collect(struct collect_ctx *c)
{
	struct trace_state *st = c->state;
	int ret;

	if (st->dynamic) {
		ret = trace_dynamic_run(c, &st->o, &st->syms, &st->data, &st->run);
		c->last_status = st->run.status;
	} else {
		ret = st->o.nsizes ? trace_size_env(&st->o, c->argv, &st->syms, &st->size_env) : 0;
		if (ret == 0)
			ret = run_command(c, st);
		if (ret == 0 && !spawn_interrupted())
			ret = trace_read_dir(st->dir, &st->data);
		if (ret == 0)
			calibrate_killed(&st->data);
		if (ret == 0 && !spawn_interrupted())
			ret = check_rules_defined(st, c->argv[0]);
		if (ret == 0 && !spawn_interrupted())
			ret = check_sizes_read(st, c->argv[0]);
	}
	trace_watch(&st->o, "command ended (status %d): %s; %zu calls in %zu processes",
		    st->run.status, ret < 0 ? err_msg() : "ok", st->data.ncalls, st->data.nprocs);
	if (ret < 0 || spawn_interrupted())
		return ret;
	if (st->dynamic && st->keep)
		ret = write_calls(st);
	if (ret < 0)
		return ret;
	ret = check_calls(c, st);
	if (ret < 0)
		return ret;
	c->profile = trace_build_profile(&st->data, &st->o, &st->syms, c->argv[0]);
	if (c->profile)
		note_exit(c->profile, st->run.status);
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
		printf("Traced %zu functions in %zu threads of %zu processes (sums only)\n",
		       profile_nres(c->profile), nthreads, d->nprocs);
		return;
	}
	printf("Traced %zu calls in %zu threads of %zu processes; kept %zu\n", d->ncalls, nthreads,
	       d->nprocs, profile_nres(c->profile));
	if (d->bytes)
		printf("  %s: %.1f bytes per call\n", st->dynamic ? "Probe samples" : "Records",
		       (double)d->bytes / (double)d->ncalls);
	for (size_t i = 0; i < d->nprocs; i++)
		if (d->procs[i].lost)
			fprintf(stderr,
				"Warning: process %d lost %lu calls that signal handlers made "
				"while the runtime was defining a function\n",
				d->procs[i].pid, d->procs[i].lost);
	if (d->nfull)
		fprintf(stderr,
			"Warning: %zu thread%s filled the room for records (disk or address "
			"space); the calls they made after are missing\n",
			d->nfull, d->nfull == 1 ? "" : "s");
}

static int gzip_file(const char *path)
{
	struct buf b = BUF_INIT;
	char *out = xasprintf("%s.gz", path);
	gzFile gz;
	int ret = file_read_all(path, &b);

	if (ret == 0 && (!(gz = gzopen(out, "wb")) ||
			 gzwrite(gz, b.data, (unsigned)b.len) != (int)b.len || gzclose(gz) != Z_OK))
		ret = err_set(ERR_IO, "collect trace: cannot write %s", out);
	if (ret == 0)
		unlink(path);
	buf_release(&b);
	free(out);
	return ret;
}

static int zip_dir(const char *dir)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	int ret = 0;

	if (!dp)
		return err_set(ERR_IO, "cannot read %s: %s", dir, strerror(errno));
	while (ret == 0 && (e = readdir(dp))) {
		char *path;

		if (e->d_name[0] == '.' || strstr(e->d_name, ".gz"))
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		ret = gzip_file(path);
		free(path);
	}
	closedir(dp);
	return ret;
}

/* A --timeout is how an endless command ends: a notice, not a failure
 * (as collect memory and monitor keep what came before it). */
static void warn_status(struct collect_ctx *c, const struct spawn_result *run)
{
	char what[96];

	if (WIFEXITED(run->status) && WEXITSTATUS(run->status) == 0)
		return;
	fflush(stdout);
	spawn_status_str(run->status, what, sizeof(what));
	if (run->timed_out)
		fprintf(stderr,
			"Warning: '%s' stopped by --timeout after %g s (%s); the calls it "
			"finished until then are kept\n",
			c->argv[0], c->timeout, what);
	else
		fprintf(stderr, "Warning: '%s' %s\n", c->argv[0], what);
}

static int trace_after(struct collect_ctx *c)
{
	struct trace_state *st = c->state;
	int ret = 0;

	if (!c->quiet)
		trace_summary(c, st);
	warn_status(c, &st->run);
	if (st->o.watch) {
		trace_watch(&st->o, "done");
		fclose(st->o.watch);
		st->o.watch = NULL;
		if (!c->quiet)
			printf("  Watchdog log: %s\n", st->watch_path);
	}
	if (st->zip)
		ret = zip_dir(st->dir);
	if (st->keep && !c->quiet)
		printf("  Raw records kept in %s\n", st->dir);
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
	for (size_t i = 0; i < st->o.nrules; i++)
		rule_free(&st->o.rules[i]);
	free(st->o.rules);
	for (size_t i = 0; i < st->o.nusdts; i++)
		rule_free(&st->o.usdts[i]);
	free(st->o.usdts);
	for (size_t i = 0; i < st->o.nsizes; i++) {
		free(st->o.sizes[i].func);
		free(st->o.sizes[i].arg);
		free(st->o.sizes[i].member);
	}
	free(st->o.sizes);
	for (size_t i = 0; i < st->o.nlibs; i++)
		free(st->o.libs[i]);
	free(st->o.libs);
	free(st->o.binary);
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

/* ---- the runtime library ---- */

static char *existing(char *path)
{
	if (path && access(path, R_OK) == 0)
		return path;
	free(path);
	return NULL;
}

/* A veles run from its build tree uses the runtime built beside it. */
static bool in_build_tree(void)
{
	char *exe = self_exe_path();
	size_t root = strlen(VELES_BUILD_ROOT);
	bool in = exe && strncmp(exe, VELES_BUILD_ROOT, root) == 0 && exe[root] == '/';

	free(exe);
	return in;
}

char *trace_runtime_path(void)
{
	const char *env = getenv("VELES_TRACE_LIB");

	if (env && *env)
		return existing(xstrdup(env));
	if (in_build_tree())
		return existing(xstrdup(VELES_BUILD_ROOT "/runtime/libveles-trace.so"));
	return existing(xstrdup(VELES_RUNTIME_INSTALLED));
}

const struct collector trace_collector = {
	.name = "trace",
	.summary = "time of every call of a program's functions, and between its USDT probes",
	.usage = trace_usage,
	.parse = trace_parse,
	.before = trace_before,
	.collect = trace_collect,
	.after = trace_after,
	.release = trace_release,
};
