/*
 * degradation.strategies in config.yml: which check method applies to
 * which profiles, with Perun's semantics (perun/check/factory.py): the
 * project's rules, then the user's; each names a method (ours or Perun's
 * full name) and any of type, cmd, workload, args (or params), collector
 * and postprocessor (shell patterns for cmd, workload and args); a profile
 * takes the method of every rule that matches it, each once, or with
 * degradation.apply: first of the first one.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/degrade.h"
#include "cli/check.h"
#include "cli/cli.h"
#include "config/config.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"

static const char *const field_names[CHECK_RULE_FIELDS] = {
	"type", "cmd", "workload", "collector", "postprocessor", "args", "params"};

static bool glob_or_equal(const char *pattern, const char *value)
{
	return value && (strcmp(pattern, value) == 0 || fnmatch(pattern, value, 0) == 0);
}

/* Postprocessor names compare with '_' and '-' alike: Perun's
 * regression_analysis is our regression-analysis. */
static bool same_name(const char *a, size_t alen, const char *b)
{
	size_t i;

	for (i = 0; i < alen && b[i]; i++)
		if (a[i] != b[i] && !(strchr("_-", a[i]) && strchr("_-", b[i])))
			return false;
	return i == alen && !b[i];
}

/* Whether the profile ran postprocessor @name (its "postprocessors" list). */
static bool ran_postprocessor(const struct profile *p, const char *name)
{
	const char *at = p->postprocessors;

	while (at && (at = strstr(at, "\"name\":\""))) {
		const char *v = at + 8, *end = strchr(v, '"');

		if (end && same_name(v, (size_t)(end - v), name))
			return true;
		at = v;
	}
	return false;
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
		if (same_name(long_names[i][0], strlen(long_names[i][0]), name))
			name = long_names[i][1];
	for (const char *const *m = check_method_names(); *m; m++)
		if (strcmp(*m, name) == 0)
			return *m;
	return NULL;
}

/* Perun's default is all: every matching rule's method, each once. */
static int load_apply(const struct cli_ctx *ctx, bool *all)
{
	char *apply = cli_config_string(ctx, "degradation.apply");
	int ret = 0;

	*all = !apply || strcmp(apply, "all") == 0;
	if (apply && !*all && strcmp(apply, "first") != 0)
		ret = err_set(ERR_INVALID, "degradation.apply is '%s': use first or all", apply);
	free(apply);
	return ret;
}

/* The rules of one file, after those already in @s. */
static int load_rules(const char *path, struct check_strategies *s)
{
	struct config *c = NULL;
	int ret = config_load(path, &c);

	for (size_t i = 0; ret == 0; i++) {
		char *key = xasprintf("degradation.strategies.%zu.method", i);
		const char *method = config_get(c, key);
		struct check_rule *r;

		free(key);
		if (!method)
			break;
		s->rules = xrealloc(s->rules, (s->n + 1) * sizeof(*s->rules));
		r = &s->rules[s->n++];
		memset(r, 0, sizeof(*r));
		for (size_t f = 0; f < CHECK_RULE_FIELDS; f++) {
			key = xasprintf("degradation.strategies.%zu.%s", i, field_names[f]);
			r->field[f] = config_get(c, key) ? xstrdup(config_get(c, key)) : NULL;
			free(key);
		}
		r->method = check_method_canonical(method);
		if (!r->method) {
			key = xasprintf("degradation.strategies.%zu.method", i);
			ret = config_error_at(c, key, "%s: unknown method '%s'", key, method);
			free(key);
		}
	}
	config_free(c);
	return ret;
}

/*
 * As Perun gathers them: the project's rules, then the user's (Perun's
 * local.yml, then shared.yml), in one list.
 */
int check_strategies_load(const struct cli_ctx *ctx, struct check_strategies *s)
{
	char *paths[2] = {ctx->veles_dir ? xasprintf("%s/config.yml", ctx->veles_dir) : NULL,
			  config_user_path()};
	int ret = cli_config_validate(ctx);

	memset(s, 0, sizeof(*s));
	if (ret == 0)
		ret = load_apply(ctx, &s->all);
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		if (ret == 0 && paths[i])
			ret = load_rules(paths[i], s);
		free(paths[i]);
	}
	if (ret < 0)
		check_strategies_free(s);
	return ret;
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
	bool has_models = p->models && strcmp(p->models, "[]") != 0;
	bool is_time = p->type && strcmp(p->type, "time") == 0;

	if (p->type && strcmp(p->type, "bound") == 0)
		return "bounds";
	return has_models && !is_time ? "int" : "stat";
}

void check_methods_for(const struct check_strategies *s, const struct profile *p,
		       const char *methods[CHECK_MAX_METHODS], size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < s->n && *n < CHECK_MAX_METHODS; i++) {
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
