/*
 * The trace collector's options: one table (util/optparse.h) that parses
 * them and writes `veles collect trace --help`, the -f/-u/--size rules
 * they describe, and which mode they ask for.
 */
#include <stdlib.h>
#include <string.h>

#include "collect/collector.h"
#include "collect/trace/trace-state.h"
#include "util/common.h"
#include "util/optparse.h"

/* How many calls u_sampled and a_sampled keep: every SAMPLED_DEFAULT-th. */
#define SAMPLED_DEFAULT 20

/* What the table's callbacks change: the collection's common options too (-i). */
struct parse_ctx {
	struct collect_ctx *c;
	struct trace_state *st;
};

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

static void rule_free(struct trace_rule *r)
{
	free(r->func);
	free(r->lib);
	free(r->end);
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
		rule_free(r);
		*r = (struct trace_rule){0};
	}
	return ret;
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

/* ---- the table's callbacks ---- */

static int strategy_opt(void *ctx, const struct opt *opt, const char *arg)
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
	struct trace_opts *o = &((struct parse_ctx *)ctx)->st->o;

	UNUSED(opt);
	for (size_t i = 0; i < ARRAY_SIZE(strategies); i++)
		if (strcmp(arg, strategies[i].name) == 0) {
			o->strategy = strategies[i].s;
			o->sampled = strategies[i].sampled;
			o->userspace = o->strategy != STRATEGY_CUSTOM;
			return 0;
		}
	return err_set(ERR_INVALID,
		       "collect trace: --strategy is userspace, all, u_sampled, a_sampled or "
		       "custom, not '%s'",
		       arg);
}

/* -f and -u: a rule each. */
static int rule_opt(void *ctx, const struct opt *opt, const char *arg)
{
	struct trace_opts *o = &((struct parse_ctx *)ctx)->st->o;
	bool usdt = opt->short_name == 'u';
	struct trace_rule r;
	int ret = parse_location(usdt ? "--usdt" : "--func", arg, usdt, &r);

	if (ret < 0)
		return ret;
	if (usdt)
		add_rule(&o->usdts, &o->nusdts, &r);
	else
		add_rule(&o->rules, &o->nrules, &r);
	return 0;
}

static int size_opt(void *ctx, const struct opt *opt, const char *arg)
{
	UNUSED(opt);
	return parse_size(&((struct parse_ctx *)ctx)->st->o, arg);
}

static int usdt_flag_opt(void *ctx, const struct opt *opt, const char *arg)
{
	UNUSED(arg);
	((struct parse_ctx *)ctx)->st->o.with_usdt = strcmp(opt->long_name, "with-usdt") == 0;
	return 0;
}

static int sampling_opt(void *ctx, const struct opt *opt, const char *arg)
{
	struct trace_state *st = ((struct parse_ctx *)ctx)->st;

	UNUSED(opt);
	st->sampling_set = true;
	return collect_parse_count("trace", "--global-sampling", arg, 1, &st->o.global_sampling);
}

static int binary_opt(void *ctx, const struct opt *opt, const char *arg)
{
	struct trace_opts *o = &((struct parse_ctx *)ctx)->st->o;

	UNUSED(opt);
	free(o->binary);
	o->binary = xstrdup(arg);
	return 0;
}

static int lib_opt(void *ctx, const struct opt *opt, const char *arg)
{
	struct trace_opts *o = &((struct parse_ctx *)ctx)->st->o;

	UNUSED(opt);
	o->libs = xrealloc(o->libs, (o->nlibs + 1) * sizeof(*o->libs));
	o->libs[o->nlibs++] = xstrdup(arg);
	return 0;
}

static int zip_opt(void *ctx, const struct opt *opt, const char *arg)
{
	struct trace_state *st = ((struct parse_ctx *)ctx)->st;

	UNUSED(opt);
	UNUSED(arg);
	st->keep = st->zip = true;
	return 0;
}

/* -i: as -w -z -o capture, where it stands among the options. */
static int diagnostics_opt(void *ctx, const struct opt *opt, const char *arg)
{
	struct parse_ctx *p = ctx;

	UNUSED(opt);
	UNUSED(arg);
	p->st->watchdog = p->st->keep = p->st->zip = true;
	p->c->output_arg = "capture";
	return 0;
}

/* ---- after parsing ---- */

/* The seed's -np is one word: read letter by letter it would be -n -p. */
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

static const char usage[] = "veles collect trace --instrumented [OPTIONS] -- COMMAND [ARGS...]\n"
			    "veles collect trace [-d] [-s STRATEGY] [-f FUNC...] [-u PROBE...]\n"
			    "                    [OPTIONS] -- COMMAND [ARGS...]";
static const char about[] =
	"Runs COMMAND and records how long each call of each of its functions took\n"
	"(inclusive and exclusive time), in which thread and in which order, and the\n"
	"time between USDT probes. One resource per call, keyed by function.";

int trace_parse(struct collect_ctx *c, int argc, char **argv)
{
	struct trace_state *st = xcalloc(1, sizeof(*st));
	struct parse_ctx ctx = {c, st};
	const struct opt opts[] = {
		OPT_BOOL(0, "instrumented", &st->instrumented,
			 "COMMAND is built with `veles cflags trace` (or\n"
			 "its --pg, the mcount build): the trace runtime\n"
			 "records every function it compiled"),
		OPT_BOOL('d', "dynamic", &st->dynamic,
			 "uprobes on the unmodified binary (the default\n"
			 "when -s, -f, -u, -b or -l is given); needs root"),
		OPT_BOOL(0, "aggregate", &st->o.aggregate,
			 "sums per function and thread (calls, inclusive\n"
			 "and exclusive time, min, max, a histogram)\n"
			 "instead of every call; `veles show PROFILE\n"
			 "histogram` draws them"),
		OPT_CALLBACK(
			's', "strategy", "S", strategy_opt,
			"userspace (every function of the binary), all\n"
			"(and of its libraries), u_sampled, a_sampled\n"
			"(the same, every " STR(SAMPLED_DEFAULT) "th call), custom (-f and -u\n"
								 "only; the default)"),
		OPT_CALLBACK('f', "func", "[LIB#]FUNC[#N]", rule_opt,
			     "trace FUNC (in LIB), every Nth call\n"
			     "(repeatable); a C++ FUNC mangled or demangled,\n"
			     "without its parameters for every overload\n"
			     "(ns::C::f)"),
		OPT_CALLBACK('u', "usdt", "[LIB#]PROBE[#N]", rule_opt,
			     "trace a USDT probe: to PROBE_end (_END; or from\n"
			     "X_begin/X_start to X_end), else from hit to\n"
			     "hit; START#END pairs two explicitly (repeatable)"),
		OPT_FLAG_CALLBACK(0, "with-usdt", usdt_flag_opt,
				  "a strategy probes every USDT probe too (default)"),
		OPT_FLAG_CALLBACK(0, "no-usdt", usdt_flag_opt, "a strategy probes no USDT probe"),
		OPT_CALLBACK('g', "global-sampling", "N", sampling_opt,
			     "keep every Nth call of each function\n"
			     "(default 1)"),
		OPT_CALLBACK('b', "binary", "PATH", binary_opt,
			     "the binary whose functions are probed (default:\n"
			     "COMMAND's executable)"),
		OPT_CALLBACK('l', "libs", "LIB", lib_opt,
			     "a library probed too, with a strategy; where\n"
			     "-f looks for what the binary lacks (repeatable)"),
		OPT_CALLBACK(0, "size", "FUNC:ARGN", size_opt,
			     "each call's structure-unit-size is FUNC's\n"
			     "ARGN-th integer argument (1-6; a USDT probe's:\n"
			     "1-12), or with 'FUNC:ARG->member' a member of\n"
			     "what ARG points to (DWARF); dynamic: FUNC is\n"
			     "probed too; instrumented: the --pg build only,\n"
			     "every function still recorded"),
		/* The common --timeout, with -t and what it means here. */
		OPT_STRING('t', "timeout", &c->timeout_arg, "S",
			   "stop COMMAND after S seconds (SIGTERM, then\n"
			   "SIGKILL 2 s later) and keep the calls it\n"
			   "finished"),
		OPT_BOOL('k', "keep-temps", &st->keep,
			 "keep the raw records and say where they are"),
		OPT_FLAG_CALLBACK('z', "zip-temps", zip_opt,
				  "keep them gzip-compressed (implies -k)"),
		OPT_BOOL('w', "watchdog", &st->watchdog,
			 "log each step of the collection to .veles/logs/"),
		OPT_FLAG_CALLBACK('i', "diagnostics", diagnostics_opt,
				  "-w, -z and --output-handling capture together"),
		OPT_BOOL(0, "no-profile", &st->no_profile,
			 "(or -np) collect and summarise, but write no\n"
			 "profile"),
		OPT_END(),
	};
	const struct collect_options o = {
		.usage = usage, .about = about, .opts = opts, .ctx = &ctx};
	int ret;

	st->o.global_sampling = 1;
	st->o.with_usdt = true;
	c->state = st;
	seed_spellings(argc, argv);
	ret = collect_parse_options(c, "trace", &o, argc, argv);
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
	return 0;
}

void trace_opts_release(struct trace_opts *o)
{
	for (size_t i = 0; i < o->nrules; i++)
		rule_free(&o->rules[i]);
	free(o->rules);
	for (size_t i = 0; i < o->nusdts; i++)
		rule_free(&o->usdts[i]);
	free(o->usdts);
	for (size_t i = 0; i < o->nsizes; i++) {
		free(o->sizes[i].func);
		free(o->sizes[i].arg);
		free(o->sizes[i].member);
	}
	free(o->sizes);
	for (size_t i = 0; i < o->nlibs; i++)
		free(o->libs[i]);
	free(o->libs);
	free(o->binary);
	o->rules = o->usdts = NULL;
	o->sizes = NULL;
	o->libs = NULL;
	o->binary = NULL;
	o->nrules = o->nusdts = o->nsizes = o->nlibs = 0;
}
