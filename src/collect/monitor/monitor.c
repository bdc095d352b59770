/*
 * The monitor collector: `veles collect monitor [-s LETTERS] [-i SECS] --
 * CMD` (and `veles monitor --profile ... -- CMD`) samples the system while
 * CMD runs and writes the summary values of each interval as a profile, so
 * the load a version put on the machine is versioned with it. A resource
 * per value and interval: uid "cpu.user", "mem.free", ...; type monitor;
 * subtype the view (cpu, dsk, mem, net, ...); amount the value; time the
 * interval's end in seconds since the first sample; order its number.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "collect/collector.h"
#include "collect/monitor/monitor.h"
#include "monitor/run.h"
#include "monitor/view.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/optparse.h"
#include "util/spawn.h"
#include "util/strmap.h"

struct mon_state {
	const char *letters;
	double interval;
	long count;	     /* -c: intervals to sample; -1: until CMD ends */
	bool per_interval;   /* --on */
	const char *imports; /* --import: module values join the profile */
	struct buf values;
	int status;
	bool timed_out; /* --timeout stopped the command */
};

static int subsys_opt(void *ctx, const struct opt *o, const char *arg)
{
	struct mon_state *st = ctx;

	UNUSED(o);
	for (const char *p = arg; *p; p++) {
		const struct mon_view *v = mon_view_find(*p);

		if (!v || v->detail)
			return err_set(ERR_INVALID,
				       "collect monitor: '%c' is not a summary subsystem", *p);
	}
	st->letters = arg;
	return 0;
}

static int interval_opt(void *ctx, const struct opt *o, const char *arg)
{
	struct mon_state *st = ctx;
	char *end;

	UNUSED(o);
	st->interval = strtod(arg, &end);
	if (end == arg || *end || !(st->interval > 0) || st->interval > 86400)
		return err_set(ERR_INVALID, "collect monitor: bad interval '%s'", arg);
	return 0;
}

static int count_opt(void *ctx, const struct opt *o, const char *arg)
{
	struct mon_state *st = ctx;
	char *end;
	long n = strtol(arg, &end, 10);

	UNUSED(o);
	if (end == arg || *end || n < 0)
		return err_set(ERR_INVALID, "collect monitor: bad count '%s'", arg);
	st->count = n;
	return 0;
}

static int monitor_parse(struct collect_ctx *c, int argc, char **argv)
{
	struct mon_state *st = xcalloc(1, sizeof(*st));
	const struct opt opts[] = {
		OPT_CALLBACK('s', "subsys", "LETTERS", subsys_opt,
			     "summary subsystems (default cdmn; see veles monitor)"),
		OPT_CALLBACK('i', "interval", "SECS", interval_opt,
			     "seconds between samples (default 1)"),
		OPT_CALLBACK('c', "count", "N", count_opt,
			     "stop sampling after N intervals (the command goes on)"),
		OPT_BOOL(0, "on", &st->per_interval, "counters per interval instead of per second"),
		OPT_STRING(0, "import", &st->imports, "F[,OPTS][:F2...]",
			   "import modules, whose exported values join the\n"
			   "profile (see veles monitor)"),
		OPT_GROUP(
			"A last sample is taken when COMMAND ends, so a command shorter than\n"
			"one interval still gives one interval of values.\n"
			"\n"
			"--timeout S stops the command after S seconds (SIGTERM, then SIGKILL 2 s\n"
			"later); the profile holds the load up to its end. --output-handling\n"
			"capture writes the command's output to the log only."),
		OPT_END(),
	};
	const struct collect_options o = {
		.usage = "veles collect monitor [-s LETTERS] [-i SECS] [OPTIONS] -- COMMAND...",
		.about = "Samples the system (veles monitor) while COMMAND runs and writes each\n"
			 "interval's summary values as a profile.",
		.opts = opts,
		.ctx = st,
	};

	st->letters = "cdmn";
	st->interval = 1;
	st->count = -1;
	c->state = st;
	return collect_parse_options(c, "monitor", &o, argc, argv);
}

/* The monitor's notes and warnings (a module's), as the collector's. */
static void monitor_say(void *arg, const char *line)
{
	collect_say(arg, COLLECT_MSG_ERR, "%s", line);
}

static int monitor_collect(struct collect_ctx *c)
{
	struct mon_state *st = c->state;
	struct mon_run_opts o = {.letters = st->letters,
				 .interval = st->interval,
				 .count = st->count,
				 .per_interval = st->per_interval,
				 .imports = st->imports,
				 .sep = ' ',
				 .cmd = c->argv,
				 .cmd_status = &st->status,
				 .timeout = c->timeout,
				 .timed_out = &st->timed_out,
				 .cmd_output = c->output == OUTPUT_SUPPRESS  ? "/dev/null"
					       : c->output == OUTPUT_CAPTURE ? c->log_path
									     : NULL,
				 .cmd_cwd = c->env->cwd,
				 .values = &st->values,
				 .quiet = true,
				 .say = monitor_say,
				 .say_arg = c};
	int rc = mon_run(&o);
	double last = 0;

	c->last_status = st->status;
	if (rc < 0)
		return rc;
	c->profile = monitor_profile_new(
		xasprintf("{\"subsystems\":\"%s\",\"interval\":%g%s}", st->letters, st->interval,
			  st->per_interval ? ",\"per_interval\":true" : ""));
	monitor_profile_fill(c->profile, buf_str(&st->values), &last);
	c->profile->has_timestamp = true;
	c->profile->timestamp = last;
	return 0;
}

struct types {
	struct strmap names;
	uint32_t *ids; /* by the name's number in @names */
};

/* The type of value @name ("cpu.user"): one per name, made on first use. */
static uint32_t type_of(struct profile *p, struct types *ts, const char *name)
{
	bool added;
	size_t i = strmap_intern(&ts->names, name, &added);
	char view[16];

	if (added) {
		struct attr a[] = {
			{.name = "uid", .kind = COL_STR, .s = name},
			{.name = "type", .kind = COL_STR, .s = "monitor"},
			{.name = "subtype", .kind = COL_STR, .s = view},
		};

		snprintf(view, sizeof(view), "%.*s", (int)strcspn(name, "."), name);
		ts->ids = xrealloc(ts->ids, (i + 1) * sizeof(*ts->ids));
		ts->ids[i] = profile_type_add(p, a, ARRAY_SIZE(a));
	}
	return ts->ids[i];
}

struct profile *monitor_profile_new(char *params)
{
	struct profile *p = profile_new();

	p->layout = LAYOUT_GLOBAL;
	p->type = xstrdup("monitor");
	p->units = xcalloc(1, sizeof(*p->units));
	p->units[0] = (struct kv){xstrdup("monitor"), xstrdup("value")};
	p->nunits = 1;
	p->collector_params = params;
	return p;
}

void monitor_profile_fill(struct profile *p, const char *values, double *last)
{
	static const char *const cols[] = {"amount", "time", "order"};
	struct column *col[ARRAY_SIZE(cols)];
	struct types ts = {{0}, NULL};
	double prev_t = -1;
	long order = 0;

	/* Create every column before taking pointers: adding one may move them. */
	for (size_t k = 0; k < ARRAY_SIZE(cols); k++)
		table_col_get(p, &p->res, cols[k], k == 2 ? COL_I64 : COL_F64);
	for (size_t k = 0; k < ARRAY_SIZE(cols); k++)
		col[k] = table_col_get(p, &p->res, cols[k], k == 2 ? COL_I64 : COL_F64);
	for (const char *l = values; l && *l;) {
		char name[64];
		double t, v;
		size_t n = strcspn(l, "\n");

		if (sscanf(l, "%lf %63s %lf", &t, name, &v) == 3) {
			size_t row = profile_res_add(p, type_of(p, &ts, name));

			if (t != prev_t) {
				order++;
				prev_t = t;
			}
			col_set_f64(&p->res, col[0], row, v);
			col_set_f64(&p->res, col[1], row, t);
			col_set_i64(&p->res, col[2], row, order);
			*last = t;
		}
		l += n + (l[n] == '\n');
	}
	strmap_free(&ts.names);
	free(ts.ids);
}

static int monitor_after(struct collect_ctx *c)
{
	struct mon_state *st = c->state;
	char what[96];

	if (!c->quiet && c->profile)
		collect_say(c, COLLECT_MSG_OUT, "monitor: %zu values over %.1f s\n",
			    profile_nres(c->profile), c->profile->timestamp);
	if (st->timed_out) {
		spawn_status_str(st->status, what, sizeof(what));
		collect_say(c, COLLECT_MSG_ERR,
			    "Warning: command stopped by --timeout after %g s (%s)", c->timeout,
			    what);
	} else if (!WIFEXITED(st->status) || WEXITSTATUS(st->status)) {
		spawn_status_str(st->status, what, sizeof(what));
		collect_say(c, COLLECT_MSG_ERR, "Warning: command %s", what);
	}
	return 0;
}

static void monitor_release(struct collect_ctx *c)
{
	struct mon_state *st = c->state;

	if (!st)
		return;
	buf_release(&st->values);
	free(st);
	c->state = NULL;
}

const struct collector monitor_collector = {
	.name = "monitor",
	.summary = "system load (veles monitor) sampled while a command runs",
	.parse = monitor_parse,
	.collect = monitor_collect,
	.after = monitor_after,
	.release = monitor_release,
};
