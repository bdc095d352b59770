/* libveles: checks of two profiles or two versions (`veles check`). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/envinfo.h"
#include "analyze/metric.h"
#include "analyze/profile_config.h"
#include "analyze/strategy.h"
#include "api/api.h"
#include "profile/profile.h"
#include "project/check_versions.h"
#include "project/settings.h"
#include "store/store.h"
#include "util/common.h"
#include "util/error.h"
#include "util/strmap.h"

struct veles_check {
	veles_project *pr;
	struct check_strategies strategies;
	struct check_opts o;
	bool strict_env, force;
	struct strmap env_said; /* environment differences already warned of */
};

static const char *const result_cols[] = {
	"location",    "result",    "method",		"rel_change",
	"ci_low",      "ci_high",   "confidence",	"confidence_kind",
	"baseline",    "target",    "n_baseline",	"n_target",
	"note",	       "detail",    "baseline_profile", "target_profile",
	"baseline_id", "target_id", "baseline_version", "target_version",
	"config",
};

int veles_check_new(veles_project *pr, veles_check **out)
{
	veles_check *c = xcalloc(1, sizeof(*c));
	int ret = 0;

	*out = NULL;
	c->pr = pr;
	check_params_default(&c->o.cp);
	if (pr)
		ret = check_strategies_load(&pr->pr, &c->strategies);
	if (ret < 0) {
		free(c);
		return ret;
	}
	c->o.strategies = &c->strategies;
	*out = c;
	return 0;
}

void veles_check_free(veles_check *c)
{
	if (!c)
		return;
	check_strategies_free(&c->strategies);
	strmap_free(&c->env_said);
	free(c);
}

int api_parse_number(const char *key, const char *value, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(value, &end);
	if (end == value || *end || errno || !(v > lo && v < hi))
		return err_set(ERR_INVALID, "%s wants a number in (%g, %g), not '%s'", key, lo, hi,
			       value);
	*out = v;
	return 0;
}

int api_parse_flag(const char *key, const char *value, bool *out)
{
	if (!strcmp(value, "true") || !strcmp(value, "1") || !strcmp(value, "yes"))
		*out = true;
	else if (!strcmp(value, "false") || !strcmp(value, "0") || !strcmp(value, "no"))
		*out = false;
	else
		return err_set(ERR_INVALID, "%s wants true or false, not '%s'", key, value);
	return 0;
}

static int set_choice(veles_check *c, const char *key, const char *value)
{
	if (!strcmp(key, "method")) {
		c->o.method = check_method_canonical(value);
		return c->o.method ? 0
				   : err_set(ERR_INVALID,
					     "unknown method '%s' (see `veles check "
					     "--help`)",
					     value);
	}
	if (!strcmp(key, "on")) {
		if (!metric_known(value))
			return err_set(ERR_INVALID,
				       "on wants instructions, cycles, cpu, real, user or sys, not "
				       "'%s'",
				       value);
		c->o.on = metric_order()[0];
		for (const char *const *m = metric_order(); *m; m++)
			if (!strcmp(*m, value))
				c->o.on = *m;
		return 0;
	}
	if (!strcmp(key, "models-type")) {
		int pairing = model_pairing_parse(value);

		if (pairing < 0)
			return err_set(
				ERR_INVALID,
				"models-type: unknown strategy '%s' (best-model, best-param, "
				"best-nonparam, all-param, all-nonparam, all-models, "
				"best-both)",
				value);
		c->o.cp.pairing = (enum model_pairing)pairing;
		return 0;
	}
	if (!strcmp(value, "mann-whitney") || !strcmp(value, "welch")) {
		c->o.cp.test = value[0] == 'w' ? TEST_WELCH : TEST_MANN_WHITNEY;
		return 0;
	}
	return err_set(ERR_INVALID, "unknown test '%s': use mann-whitney or welch", value);
}

int veles_check_set(veles_check *c, const char *key, const char *value)
{
	struct check_params *cp = &c->o.cp;
	double v;
	int ret;

	if (!key || !value)
		return err_set(ERR_INVALID, "a check option wants a key and a value");
	if (!strcmp(key, "method") || !strcmp(key, "on") || !strcmp(key, "test") ||
	    !strcmp(key, "models-type"))
		return set_choice(c, key, value);
	if (!strcmp(key, "alpha"))
		return api_parse_number(key, value, 0, 0.5, &cp->alpha);
	if (!strcmp(key, "min-effect"))
		return api_parse_number(key, value, -1e-300, 10, &cp->min_effect);
	if (!strcmp(key, "severe"))
		return api_parse_number(key, value, 0, 100, &cp->severe);
	if (!strcmp(key, "strict-env"))
		return api_parse_flag(key, value, &c->strict_env);
	if (!strcmp(key, "force"))
		return api_parse_flag(key, value, &c->force);
	if (!strcmp(key, "aat-threshold")) {
		ret = api_parse_number(key, value, 1, 1e9, &cp->aat_degradation);
		cp->aat_optimization = 1 / cp->aat_degradation;
		return ret;
	}
	if (!strcmp(key, "rounds") || !strcmp(key, "seed")) {
		ret = api_parse_number(key, value, -1, 1.8e19, &v);
		if (ret == 0 && v != floor(v))
			ret = err_set(ERR_INVALID, "%s wants a whole number, not '%s'", key, value);
		if (ret == 0 && !strcmp(key, "rounds") && (v < 100 || v > 1000000))
			ret = err_set(ERR_INVALID, "rounds wants 100 to 1000000");
		if (ret == 0 && !strcmp(key, "rounds"))
			cp->bootstrap_rounds = (unsigned)v;
		else if (ret == 0)
			cp->seed = (uint64_t)v;
		return ret;
	}
	return err_set(ERR_INVALID,
		       "unknown check option '%s': use method, alpha, min-effect, severe, test, "
		       "rounds, seed, aat-threshold, on, strict-env or force",
		       key);
}

static void env_warn(void *arg, const char *msg)
{
	UNUSED(arg);
	api_log(VELES_LOG_WARNING, "%s", msg);
}

/* The environments of the two sides: a warning (each difference once),
 * or under strict-env a refusal. */
static int env_check(veles_check *c, const struct profile *a, const char *an,
		     const struct profile *b, const char *bn)
{
	const struct env_guard g = {c->strict_env, "strict-env", &c->env_said, env_warn, NULL};

	return env_guard_profiles(&g, a, an, b, bn);
}

/* Where one side of a pair comes from. */
struct side {
	const struct profile *p;
	const char *name, *id, *version;
};

static void add_row(veles_table *t, const struct side *s, const char *config,
		    const struct change *ch)
{
	size_t row = t->nrows;
	/* Columns 3 to 9 but 7, confidence_kind. */
	const double nums[] = {ch->rel_change, ch->ci_low, ch->ci_high, ch->confidence, NAN,
			       ch->baseline,   ch->target};
	const char *texts[] = {s[0].name,    s[1].name,	   s[0].id, s[1].id,
			       s[0].version, s[1].version, config};

	table_set_str(t, 0, row, ch->location);
	table_set_str(t, 1, row, change_class_name(ch->cls));
	table_set_str(t, 2, row, ch->method);
	for (size_t i = 0; i < ARRAY_SIZE(nums); i++)
		if (!isnan(nums[i]))
			table_set_f64(t, 3 + i, row, nums[i]);
	table_set_str(t, 7, row, ch->confidence_kind);
	table_set_i64(t, 10, row, (int64_t)ch->n_baseline);
	table_set_i64(t, 11, row, (int64_t)ch->n_target);
	table_set_str(t, 12, row, ch->note);
	table_set_str(t, 13, row, ch->detail);
	for (size_t i = 0; i < ARRAY_SIZE(texts); i++)
		table_set_str(t, 14 + i, row, texts[i] && *texts[i] ? texts[i] : NULL);
}

static veles_table *results_new(void)
{
	veles_table *t = table_new(NULL);

	for (size_t i = 0; i < ARRAY_SIZE(result_cols); i++) {
		int kind = i >= 3 && i <= 9 && i != 7 ? VELES_F64 : VELES_STR;

		if (i == 10 || i == 11)
			kind = VELES_I64;
		table_add(t, result_cols[i], kind);
	}
	return t;
}

/* Compares one pair into @t. */
static int compare(veles_check *c, const struct side *s, veles_table *t)
{
	struct change_list l = {0};
	char *config;
	int ret = 0;

	if (!c->force)
		ret = profile_comparable(s[0].p, s[0].name, s[1].p, s[1].name);
	if (ret == 0)
		ret = env_check(c, s[0].p, s[0].name, s[1].p, s[1].name);
	if (ret == 0)
		ret = check_compare_pair(&c->o, s[0].p, s[0].name, s[1].p, s[1].name, &l);
	config = profile_config_title(s[1].p);
	for (size_t i = 0; i < l.n && ret == 0; i++) {
		add_row(t, s, config, &l.v[i]);
		if (l.v[i].note)
			api_log(VELES_LOG_WARNING, "%s in %s could not be judged (%s)",
				l.v[i].location, s[1].name, l.v[i].note);
	}
	free(config);
	change_list_free(&l);
	return ret;
}

static int finish(veles_table *t, int ret, veles_table **out)
{
	if (ret < 0) {
		veles_table_free(t);
		return ret;
	}
	table_finish(t);
	*out = t;
	return 0;
}

int veles_check_profiles(veles_check *c, const veles_profile *base, const veles_profile *target,
			 veles_table **out)
{
	const struct side s[2] = {{base->p, base->name, base->id, base->version},
				  {target->p, target->name, target->id, target->version}};
	veles_table *t = results_new();

	*out = NULL;
	return finish(t, compare(c, s, t), out);
}

static int run_env_check(void *arg, const struct profile *a, const char *an,
			 const struct profile *b, const char *bn)
{
	return env_check(arg, a, an, b, bn);
}

/* A compared pair's rows, as compare() adds them. */
static void add_pair_rows(veles_table *t, const struct check_pair *p)
{
	const struct side s[2] = {
		{NULL, p->baseline_name, p->baseline_id, p->baseline_version},
		{NULL, p->target_name, p->target_id, p->target_version},
	};

	for (size_t i = 0; i < p->changes.n; i++) {
		add_row(t, s, p->config, &p->changes.v[i]);
		if (p->changes.v[i].note)
			api_log(VELES_LOG_WARNING, "%s in %s could not be judged (%s)",
				p->changes.v[i].location, p->target_name, p->changes.v[i].note);
	}
}

/* The same orchestration as `veles check head` (project/check_versions.h),
 * with @base in place of the parents. */
int veles_check_versions(veles_check *c, const char *base, const char *target, veles_table **out)
{
	struct check_run run = {.co = c->o, .env_check = run_env_check, .arg = c};
	struct check_report r = {0};
	char id[2][41];
	veles_table *t = results_new();
	int ret = 0;

	*out = NULL;
	if (!c->pr)
		ret = err_set(ERR_INVALID, "checking versions needs a project (veles_check_new)");
	for (int i = 0; i < 2 && ret == 0; i++)
		ret = project_version(&c->pr->pr, i ? target : base, id[i]);
	if (ret == 0)
		ret = check_run_version(&run, c->pr->pr.store, id[1], &id[0], 1, &r);
	if (ret == 0 && r.n == 0 && r.without_baseline == 0)
		ret = err_set(ERR_NOTFOUND,
			      "no profile registered to version %.7s: nothing to check", id[1]);
	for (size_t i = 0; i < r.without_baseline && ret == 0; i++)
		api_log(VELES_LOG_WARNING, "%s has no baseline in version %.7s",
			r.unmatched[i].name, id[0]);
	for (size_t i = 0; i < r.n && ret == 0; i++)
		add_pair_rows(t, &r.pairs[i]);
	check_report_free(&r);
	return finish(t, ret, out);
}
