/*
 * veles collect trace --instrumented: runs a program built with
 * `veles cflags trace` with libveles-trace.so preloaded, reads the records
 * it wrote to a temporary directory, names the functions and writes the
 * trace profile (docs/collect-trace.md).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

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

struct trace_state {
	struct trace_opts o;
	bool instrumented, dynamic, keep, zip;
	char *runtime;
	char *dir; /* the runtime's output, a temporary directory */
	struct trace_data data;
	struct sym_cache syms;
	struct spawn_result run;
};

enum { OPT_INSTRUMENTED = 0x200, OPT_AGGREGATE, OPT_SIZE };

static void trace_usage(void)
{
	printf("usage: veles collect trace --instrumented [OPTIONS] -- COMMAND [ARGS...]\n"
	       "       veles collect trace -d -f FUNC [-f FUNC...] [OPTIONS] -- COMMAND [ARGS...]\n"
	       "\n"
	       "Runs COMMAND and records how long each call of each of its functions took\n"
	       "(inclusive and exclusive time), in which thread and in which order. One\n"
	       "resource per call, keyed by function.\n"
	       "\n"
	       "      --instrumented       COMMAND is built with `veles cflags trace`: the trace\n"
	       "                           runtime records every function it compiled\n"
	       "  -d, --dynamic            probes (uprobes) on the functions named with -f in\n"
	       "                           the unmodified binary; needs root\n"
	       "      --aggregate          sums per function and thread (calls, inclusive and\n"
	       "                           exclusive time) instead of every call\n"
	       "  -s, --strategy S         --dynamic: userspace (every function of the\n"
	       "                           program) or custom (the -f functions; default)\n"
	       "  -f, --func FUNC[#N]      keep only these functions (repeatable), every Nth\n"
	       "                           call of FUNC when #N is given\n"
	       "  -g, --global-sampling N  keep every Nth call of each function (default 1)\n"
	       "      --size FUNC:ARGN     --dynamic: each call's structure-unit-size is its\n"
	       "                           ARGN-th integer argument (1-6); traces FUNC too\n"
	       "  -k, --keep-temps         keep the raw records and say where they are\n"
	       "  -z, --zip-temps          keep them gzip-compressed (implies -k)\n"
	       "\n");
	collect_common_usage();
}

/* "FUNC:ARGN"; FUNC is traced too. */
static int parse_size(struct trace_opts *o, const char *arg)
{
	const char *colon = strrchr(arg, ':');
	struct trace_size z = {0};
	long n = 0;
	bool traced = false;

	if (!colon || colon == arg ||
	    collect_parse_count("trace", "--size's ARGN", colon + 1, 1, &n) < 0 || n > 6)
		return err_set(ERR_INVALID,
			       "collect trace: --size is FUNC:ARGN with ARGN from 1 to 6, not '%s'",
			       arg);
	z.func = xstrdup(arg);
	z.func[colon - arg] = '\0';
	z.argn = (int)n;
	o->sizes = xrealloc(o->sizes, (o->nsizes + 1) * sizeof(*o->sizes));
	o->sizes[o->nsizes++] = z;
	for (size_t i = 0; i < o->nrules; i++)
		traced |= strcmp(o->rules[i].func, z.func) == 0;
	if (traced)
		return 0;
	o->rules = xrealloc(o->rules, (o->nrules + 1) * sizeof(*o->rules));
	o->rules[o->nrules++] = (struct trace_rule){xstrdup(z.func), 0};
	return 0;
}

/* "FUNC" or "FUNC#N". */
static int parse_rule(struct trace_opts *o, const char *arg)
{
	const char *hash = strrchr(arg, '#');
	struct trace_rule r = {0};
	int ret;

	if (hash) {
		ret = collect_parse_count("trace", "--func's #SAMPLE", hash + 1, 1, &r.sample);
		if (ret < 0)
			return ret;
	}
	r.func = hash ? strndup(arg, (size_t)(hash - arg)) : xstrdup(arg);
	if (!r.func || !*r.func) {
		free(r.func);
		return err_set(ERR_INVALID, "collect trace: --func needs a function name");
	}
	o->rules = xrealloc(o->rules, (o->nrules + 1) * sizeof(*o->rules));
	o->rules[o->nrules++] = r;
	return 0;
}

static int trace_option(struct collect_ctx *c, struct trace_state *st, int opt, char **argv)
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
	case OPT_SIZE:
		return parse_size(&st->o, optarg);
	case 's':
		if (strcmp(optarg, "userspace") == 0 || strcmp(optarg, "custom") == 0) {
			st->o.userspace = optarg[0] == 'u';
			return 0;
		}
		return err_set(ERR_INVALID,
			       "collect trace: --strategy is userspace or custom, not '%s' (all, "
			       "u_sampled and a_sampled are not built)",
			       optarg);
	case 'f':
		return parse_rule(&st->o, optarg);
	case 'g':
		return collect_parse_count("trace", "--global-sampling", optarg, 1,
					   &st->o.global_sampling);
	case 'k':
		st->keep = true;
		return 0;
	case 'z':
		st->keep = st->zip = true;
		return 0;
	default:
		return collect_option(c, "trace", opt, argv);
	}
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
		{"global-sampling", required_argument, NULL, 'g'},
		{"keep-temps", no_argument, NULL, 'k'},
		{"zip-temps", no_argument, NULL, 'z'},
		COLLECT_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct trace_state *st = xcalloc(1, sizeof(*st));
	int opt, ret = 0;

	st->o.global_sampling = 1;
	c->state = st;
	while (ret == 0 && !c->help &&
	       (opt = getopt_long(argc, argv, COLLECT_SHORTOPTS "df:g:kzs:", longopts, NULL)) != -1)
		ret = trace_option(c, st, opt, argv);
	if (ret < 0 || c->help)
		return ret;
	if (st->instrumented == st->dynamic)
		return err_set(ERR_INVALID, "collect trace: choose --instrumented (a program built "
					    "with `veles cflags trace`) or --dynamic");
	if (st->o.nsizes && !st->dynamic)
		return err_set(ERR_INVALID, "collect trace: --size needs --dynamic (the "
					    "instrumented hooks see no arguments)");
	if (st->dynamic && ((!st->o.nrules && !st->o.userspace) || st->o.aggregate || st->keep))
		return err_set(ERR_INVALID,
			       "collect trace: --dynamic needs -f FUNC or -s userspace "
			       "and takes no --aggregate, -k or -z");
	if (st->o.userspace && !st->dynamic)
		return err_set(ERR_INVALID,
			       "collect trace: --strategy needs --dynamic (the "
			       "instrumented mode records every function it compiled)");
	st->o.dynamic = st->dynamic;
	return collect_take_command(c, "trace", argc, argv);
}

static int trace_before(struct collect_ctx *c)
{
	struct trace_state *st = c->state;
	const char *tmp = getenv("TMPDIR");

	if (st->dynamic)
		return 0;
	st->runtime = trace_runtime_path();
	if (!st->runtime)
		return err_set(ERR_NOTFOUND, "collect trace: the trace runtime libveles-trace.so "
					     "is not installed (set VELES_TRACE_LIB to its path)");
	st->dir = xasprintf("%s/veles-trace.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(st->dir)) {
		int ret = err_set(ERR_IO, "collect trace: cannot make a directory in %s: %s",
				  tmp && *tmp ? tmp : "/tmp", strerror(errno));

		free(st->dir);
		st->dir = NULL;
		return ret;
	}
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
	free(saved_preload);
}

static int run_command(struct collect_ctx *c, struct trace_state *st)
{
	struct spawn_opts so;
	char *saved, status[96];
	int ret;

	collect_spawn_opts(c, &so);
	set_env(st, &saved);
	ret = spawn_run(c->argv, &so, &st->run);
	restore_env(saved);
	if (ret < 0)
		return ret;
	c->last_status = st->run.status;
	if (st->run.timed_out)
		return err_set(ERR_CHILD,
			       "collect trace: '%s' timed out after %g s (%s): no profile "
			       "written",
			       c->argv[0], c->timeout,
			       spawn_status_str(st->run.status, status, sizeof(status)));
	return 0;
}

static int trace_collect(struct collect_ctx *c)
{
	struct trace_state *st = c->state;
	int ret;

	if (st->dynamic) {
		char status[96];

		ret = trace_dynamic_run(c, &st->o, &st->syms, &st->data, &st->run);
		c->last_status = st->run.status;
		if (ret == 0 && st->run.timed_out)
			ret = err_set(ERR_CHILD,
				      "collect trace: '%s' timed out after %g s (%s): no "
				      "profile written",
				      c->argv[0], c->timeout,
				      spawn_status_str(st->run.status, status, sizeof(status)));
	} else {
		ret = run_command(c, st);
		if (ret == 0 && !spawn_interrupted())
			ret = trace_read_dir(st->dir, &st->data);
	}
	if (ret < 0 || spawn_interrupted())
		return ret;
	if (st->dynamic && !st->data.ncalls)
		return err_set(ERR_INVALID,
			       "collect trace: '%s' made no call of the functions named",
			       c->argv[0]);
	if (!st->data.nprocs || !st->data.ncalls)
		return err_set(ERR_INVALID,
			       "collect trace: '%s' recorded no calls: was it built with `veles "
			       "cflags trace`?",
			       c->argv[0]);
	c->profile = trace_build_profile(&st->data, &st->o, &st->syms, c->argv[0]);
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
		printf("  Records: %.1f bytes per call\n", (double)d->bytes / (double)d->ncalls);
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

static void warn_status(struct collect_ctx *c, int status)
{
	char what[96];

	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return;
	fflush(stdout);
	fprintf(stderr, "Warning: '%s' %s\n", c->argv[0],
		spawn_status_str(status, what, sizeof(what)));
}

static int trace_after(struct collect_ctx *c)
{
	struct trace_state *st = c->state;
	int ret = 0;

	if (!c->quiet)
		trace_summary(c, st);
	warn_status(c, st->run.status);
	if (st->zip)
		ret = zip_dir(st->dir);
	if (st->keep && !c->quiet)
		printf("  Raw records kept in %s\n", st->dir);
	return ret;
}

static void trace_release(struct collect_ctx *c)
{
	struct trace_state *st = c->state;

	if (!st)
		return;
	if (st->dir && !st->keep)
		rm_rf(st->dir);
	for (size_t i = 0; i < st->o.nrules; i++)
		free(st->o.rules[i].func);
	free(st->o.rules);
	for (size_t i = 0; i < st->o.nsizes; i++)
		free(st->o.sizes[i].func);
	free(st->o.sizes);
	free(st->dir);
	free(st->runtime);
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
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t root = strlen(VELES_BUILD_ROOT);

	if (n <= 0)
		return false;
	exe[n] = '\0';
	return strncmp(exe, VELES_BUILD_ROOT, root) == 0 && exe[root] == '/';
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
	.summary = "time of every call of a program's functions (built for tracing)",
	.usage = trace_usage,
	.parse = trace_parse,
	.before = trace_before,
	.collect = trace_collect,
	.after = trace_after,
	.release = trace_release,
};
