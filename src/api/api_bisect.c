/* libveles: the first version that made a command slower, searched as
 * `veles bisect` searches it (run/bisect.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/envinfo.h"
#include "api/api.h"
#include "run/bisect.h"
#include "run/bisect_job.h"
#include "util/common.h"
#include "util/error.h"
#include "util/spawn.h"
#include "util/strmap.h"

struct veles_bisect {
	veles_project *pr;
	struct bisect b;
	/* Copies of what veles_bisect_set() was given. */
	char *build, *job, *location;
	struct strmap env_said;
	veles_table *steps; /* while a search runs */
};

enum { C_VERSION, C_VERDICT, C_CLASS, C_REL, C_NGOOD, C_NVERSION, C_N };

static void say(void *arg, enum bisect_say kind, const char *text)
{
	UNUSED(arg);
	api_log(kind == BISECT_RESULT ? VELES_LOG_WARNING : VELES_LOG_PROGRESS, "bisect: %s", text);
}

static void env_warn(void *arg, const char *msg)
{
	UNUSED(arg);
	api_log(VELES_LOG_WARNING, "%s", msg);
}

/* A version built in another environment than good: a warning, each
 * difference once, or under strict-env a refusal. */
static int env_check(void *arg, const struct env_info *good, const struct env_info *e,
		     const char *name)
{
	veles_bisect *h = arg;
	const struct env_guard g = {h->b.strict_env, "strict-env", &h->env_said, env_warn, NULL};

	return env_guard_check(&g, good, "the good version", e, name);
}

static void step(void *arg, const char *version, int verdict)
{
	veles_bisect *h = arg;
	size_t row = h->steps->nrows;

	table_set_str(h->steps, C_VERSION, row, version);
	table_set_str(h->steps, C_VERDICT, row, verdict < 0 ? "unknown" : verdict ? "bad" : "good");
}

int veles_bisect_new(veles_project *pr, veles_bisect **out)
{
	veles_bisect *h;

	*out = NULL;
	if (!pr)
		return err_set(ERR_INVALID, "bisect: no project");
	h = xcalloc(1, sizeof(*h));
	h->pr = pr;
	bisect_defaults(&h->b);
	h->b.say = say;
	h->b.env_check = env_check;
	h->b.step = step;
	h->b.arg = h;
	*out = h;
	return 0;
}

void veles_bisect_free(veles_bisect *h)
{
	if (!h)
		return;
	free(h->build);
	free(h->job);
	free(h->location);
	strmap_free(&h->env_said);
	free(h);
}

/* A text option kept as a copy; "" unsets it. */
static void set_text(char **slot, const char **field, const char *value)
{
	free(*slot);
	*slot = *value ? xstrdup(value) : NULL;
	*field = *slot;
}

static int set_count(const char *key, const char *value, unsigned long *out)
{
	double v;
	int ret = api_parse_number(key, value, -1, 1.8e19, &v);

	if (ret == 0 && v != (double)(unsigned long)v)
		ret = err_set(ERR_INVALID, "%s wants a whole number, not '%s'", key, value);
	if (ret == 0)
		*out = (unsigned long)v;
	return ret;
}

int veles_bisect_set(veles_bisect *h, const char *key, const char *value)
{
	struct bisect *b = &h->b;
	unsigned long seed;
	int ret;

	if (!key || !value)
		return err_set(ERR_INVALID, "a bisect option wants a key and a value");
	if (!strcmp(key, "build"))
		return set_text(&h->build, &b->build, value), 0;
	if (!strcmp(key, "job"))
		return set_text(&h->job, &b->job_spec, value), 0;
	if (!strcmp(key, "location"))
		return set_text(&h->location, &b->location, value), 0;
	if (!strcmp(key, "runs"))
		return set_count(key, value, &b->runs);
	if (!strcmp(key, "max-runs"))
		return set_count(key, value, &b->max_runs);
	if (!strcmp(key, "on"))
		return bisect_set_on(b, value);
	if (!strcmp(key, "min-effect"))
		return bisect_parse_fraction(key, value, &b->cp.min_effect);
	if (!strcmp(key, "alpha"))
		return bisect_parse_fraction(key, value, &b->cp.alpha);
	if (!strcmp(key, "strict-env"))
		return api_parse_flag(key, value, &b->strict_env);
	if (!strcmp(key, "interleave"))
		return api_parse_flag(key, value, &b->interleave);
	if (!strcmp(key, "seed")) {
		if ((ret = set_count(key, value, &seed)) == 0)
			b->seed = seed;
		return ret;
	}
	return err_set(ERR_INVALID,
		       "unknown bisect option '%s': use build, runs, max-runs, on, min-effect, "
		       "alpha, seed, strict-env, interleave, job or location",
		       key);
}

/* The first-decision row: the first slow version against good. */
static void add_first(veles_table *t, const struct bisect_outcome *o)
{
	size_t row = t->nrows;

	table_set_str(t, C_VERSION, row, o->first);
	table_set_str(t, C_VERDICT, row, "first");
	table_set_str(t, C_CLASS, row, change_class_name(o->cls));
	table_set_f64(t, C_REL, row, o->rel);
	table_set_i64(t, C_NGOOD, row, (int64_t)o->ngood);
	table_set_i64(t, C_NVERSION, row, (int64_t)o->nfirst);
}

static veles_table *steps_table(void)
{
	static const char *const names[C_N] = {"version",    "verdict", "class",
					       "rel_change", "n_good",	"n_version"};
	veles_table *t = table_new(NULL);

	for (size_t i = 0; i < C_N; i++)
		table_add(t, names[i],
			  i == C_REL	 ? VELES_F64
			  : i >= C_NGOOD ? VELES_I64
					 : VELES_STR);
	return t;
}

/* The search; the versions are built and measured in their checkouts, our
 * current directory stays as it is. */
static int search(veles_bisect *h, const char *bad, struct bisect_outcome *o)
{
	int ret;

	spawn_signals_install();
	ret = bisect_find(&h->b, bad, o);
	spawn_signals_restore();
	return ret;
}

static int run(veles_bisect *h, const char *const *cmd, veles_table *t)
{
	struct bisect_outcome o;
	char bad[41];
	size_t n = 0;
	int ret;

	while (cmd && cmd[n])
		n++;
	if ((ret = bisect_check(&h->b, n ? cmd[0] : NULL)) < 0 ||
	    (ret = bisect_metric(&h->b)) < 0 || (ret = bisect_prepare(&h->b, &h->pr->pr, bad)) < 0)
		return ret;
	if (h->b.job)
		bisect_job_set_message(h->b.job, api_collect_message, NULL);
	h->b.cmd = xcalloc(n + 1, sizeof(*h->b.cmd));
	for (size_t i = 0; i < n; i++)
		h->b.cmd[i] = (char *)cmd[i];
	ret = search(h, bad, &o);
	free(h->b.cmd);
	h->b.cmd = NULL;
	if (ret < 0)
		return ret;
	/* 1: a version could not be told apart; its row says "unknown". */
	if (ret == 0 && o.found)
		add_first(t, &o);
	return 0;
}

int veles_bisect_run(veles_bisect *h, const char *good, const char *bad, const char *const *cmd,
		     veles_table **out)
{
	int ret;

	*out = NULL;
	h->b.good_rev = good;
	h->b.bad_rev = bad;
	h->steps = steps_table();
	ret = run(h, cmd, h->steps);
	bisect_release(&h->b);
	h->b.good_rev = h->b.bad_rev = NULL;
	if (ret < 0) {
		veles_table_free(h->steps);
	} else {
		table_finish(h->steps);
		*out = h->steps;
	}
	h->steps = NULL;
	return ret;
}
