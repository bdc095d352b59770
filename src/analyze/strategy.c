/*
 * degradation.strategies in config.yml: which check method applies to
 * which profiles, with Perun's semantics (perun/check/factory.py): the
 * project's rules, then the user's (project/settings.c reads them); each
 * names a method (ours or Perun's full name) and any of type, cmd,
 * workload, args (or params), collector and postprocessor (shell patterns
 * for cmd, workload and args); a profile takes the method of every rule
 * that matches it, each once, or with degradation.apply: first of the
 * first one. And one compared pair of profiles: the methods, the metric
 * a time profile is judged on, the changes.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/metric.h"
#include "analyze/models.h"
#include "analyze/pprecord.h"
#include "analyze/strategy.h"
#include "profile/profile.h"
#include "util/common.h"
#include "util/error.h"

const char *const check_rule_field_names[CHECK_RULE_FIELDS] = {
	"type", "cmd", "workload", "collector", "postprocessor", "args", "params"};

static bool glob_or_equal(const char *pattern, const char *value)
{
	return value && (strcmp(pattern, value) == 0 || fnmatch(pattern, value, 0) == 0);
}

/* Whether the profile ran postprocessor @name (its "postprocessors"
 * records; Perun's regression_analysis is our regression-analysis). */
static bool ran_postprocessor(const struct profile *p, const char *name)
{
	struct pp_records r;
	bool ran = pp_records_read(p->postprocessors, &r) == 0 && pp_records_ran(&r, name);

	pp_records_free(&r);
	return ran;
}

/* A type matches ours or the one Perun sees (a monitor profile is mixed). */
static bool type_matches(const char *want, const char *type)
{
	return type && (strcmp(want, type) == 0 || strcmp(want, profile_perun_type(type)) == 0);
}

static bool rule_matches(const struct check_rule *r, const struct profile *p)
{
	char *const *want = r->field;

	return (!want[0] || type_matches(want[0], p->type)) &&
	       (!want[1] || glob_or_equal(want[1], p->cmd)) &&
	       (!want[2] || glob_or_equal(want[2], p->workload)) &&
	       (!want[3] || (p->collector && strcmp(want[3], p->collector) == 0)) &&
	       (!want[4] || ran_postprocessor(p, want[4])) &&
	       (!want[5] || glob_or_equal(want[5], p->args)) &&
	       (!want[6] || glob_or_equal(want[6], p->args));
}

const char *check_method_canonical(const char *name)
{
	/* Perun's full names (perun/check/factory.py, parse_strategy). */
	static const char *const long_names[][2] = {
		{"average_amount_threshold", "aat"},
		{"best_model_order_equality", "bmoe"},
		{"polynomial_regression", "preg"},
		{"linear_regression", "lreg"},
		{"fast_check", "fast"},
		{"integral_comparison", "int"},
		{"local_statistics", "loc"},
		{"exclusive_time_outliers", "eto"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(long_names); i++)
		if (pp_name_equal(long_names[i][0], name))
			name = long_names[i][1];
	for (const char *const *m = check_method_names(); *m; m++)
		if (strcmp(*m, name) == 0)
			return *m;
	return NULL;
}

void check_strategies_free(struct check_strategies *s)
{
	for (size_t i = 0; i < s->n; i++)
		for (size_t f = 0; f < CHECK_RULE_FIELDS; f++)
			free(s->rules[i].field[f]);
	free(s->rules);
	memset(s, 0, sizeof(*s));
}

/* Without a rule: stat on repeated measurements, int on fitted models,
 * bounds on the loop bounds of a bounds profile. */
static const char *default_method(const struct profile *p)
{
	bool has_models = !models_none(p);
	bool is_time = p->type && strcmp(p->type, "time") == 0;

	if (p->type && strcmp(p->type, "bound") == 0)
		return "bounds";
	return has_models && !is_time ? "int" : "stat";
}

void check_methods_for(const struct check_strategies *s, const struct profile *p,
		       const char *methods[CHECK_MAX_METHODS], size_t *n)
{
	*n = 0;
	for (size_t i = 0; s && i < s->n && *n < CHECK_MAX_METHODS; i++) {
		bool seen = false;

		if (!rule_matches(&s->rules[i], p))
			continue;
		/* A method two rules name runs once, as in Perun. */
		for (size_t k = 0; k < *n; k++)
			seen = seen || methods[k] == s->rules[i].method;
		if (!seen)
			methods[(*n)++] = s->rules[i].method;
		if (!s->all)
			break;
	}
	if (*n == 0)
		methods[(*n)++] = default_method(p);
}

/* The metric a time profile pair is judged on (NULL: not a time profile);
 * ERR_INVALID when o->on names one a side lacks. */
static int pick_metric(const struct check_opts *o, const struct profile *base,
		       const char *base_name, const struct profile *target, const char *target_name,
		       const char **metric)
{
	*metric = NULL;
	if (!metric_any(base) && !metric_any(target))
		return 0;
	if (!o->on) {
		*metric = metric_shared(base, target);
		return 0;
	}
	if (!metric_present(base, o->on) || !metric_present(target, o->on))
		return err_set(ERR_INVALID, "--on %s: %s has no %s", o->on,
			       metric_present(base, o->on) ? target_name : base_name, o->on);
	*metric = o->on;
	return 0;
}

int check_compare_pair(const struct check_opts *o, const struct profile *base,
		       const char *base_name, const struct profile *target, const char *target_name,
		       struct change_list *out)
{
	const char *methods[CHECK_MAX_METHODS], *metric;
	size_t n, from = out->n;
	int ret = pick_metric(o, base, base_name, target, target_name, &metric);

	if (ret < 0)
		return ret;
	if (o->method) {
		methods[0] = o->method;
		n = 1;
	} else {
		check_methods_for(o->strategies, target, methods, &n);
	}
	for (size_t i = 0; i < n && ret == 0; i++)
		ret = degrade_compare(base, target, methods[i], &o->cp, out);
	if (ret == 0 && metric)
		metric_filter_changes(out, from, metric);
	return ret;
}
