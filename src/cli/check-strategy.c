/*
 * degradation.strategies in config.yml: which check method applies to
 * which profiles, Perun's way. Each rule names a method and any of type,
 * cmd, workload, collector and postprocessor (shell patterns for cmd and
 * workload); a profile takes the method of the first rule that matches it,
 * or of every rule that does with degradation.apply: all.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/degrade.h"
#include "cli/check.h"
#include "cli/cli.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"

static const char *const field_names[CHECK_RULE_FIELDS] = {"type", "cmd", "workload", "collector",
							   "postprocessor"};

static char *rule_field(const struct cli_ctx *ctx, size_t i, const char *field)
{
	char *key = xasprintf("degradation.strategies.%zu.%s", i, field);
	char *v = cli_config_string(ctx, key);

	free(key);
	return v;
}

static bool glob_or_equal(const char *pattern, const char *value)
{
	return value && (strcmp(pattern, value) == 0 || fnmatch(pattern, value, 0) == 0);
}

/* Whether the profile ran postprocessor @name (its "postprocessors" list). */
static bool ran_postprocessor(const struct profile *p, const char *name)
{
	char *needle = xasprintf("\"name\":\"%s\"", name);
	bool found = p->postprocessors && strstr(p->postprocessors, needle);

	free(needle);
	return found;
}

static bool rule_matches(const struct check_rule *r, const struct profile *p)
{
	char *const *want = r->field;

	return (!want[0] || (p->type && strcmp(want[0], p->type) == 0)) &&
	       (!want[1] || glob_or_equal(want[1], p->cmd)) &&
	       (!want[2] || glob_or_equal(want[2], p->workload)) &&
	       (!want[3] || (p->collector && strcmp(want[3], p->collector) == 0)) &&
	       (!want[4] || ran_postprocessor(p, want[4]));
}

/* The known method called @name (its static name), or NULL. */
static const char *known_method(const char *name)
{
	for (const char *const *m = check_method_names(); *m; m++)
		if (strcmp(*m, name) == 0)
			return *m;
	return NULL;
}

static int load_apply(const struct cli_ctx *ctx, bool *all)
{
	char *apply = cli_config_string(ctx, "degradation.apply");
	int ret = 0;

	*all = apply && strcmp(apply, "all") == 0;
	if (apply && !*all && strcmp(apply, "first") != 0)
		ret = err_set(ERR_INVALID, "degradation.apply is '%s': use first or all", apply);
	free(apply);
	return ret;
}

int check_strategies_load(const struct cli_ctx *ctx, struct check_strategies *s)
{
	int ret = cli_config_validate(ctx);

	memset(s, 0, sizeof(*s));
	if (ret == 0)
		ret = load_apply(ctx, &s->all);
	for (size_t i = 0; ret == 0; i++) {
		char *method = rule_field(ctx, i, "method");
		struct check_rule *r;

		if (!method)
			break;
		s->rules = xrealloc(s->rules, (s->n + 1) * sizeof(*s->rules));
		r = &s->rules[s->n++];
		memset(r, 0, sizeof(*r));
		/* The fields first: reading a setting may leave a message behind. */
		for (size_t f = 0; f < CHECK_RULE_FIELDS; f++)
			r->field[f] = rule_field(ctx, i, field_names[f]);
		r->method = known_method(method);
		if (!r->method)
			ret = err_set(ERR_INVALID,
				      "degradation.strategies.%zu.method: unknown method '%s'", i,
				      method);
		free(method);
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
		if (!rule_matches(&s->rules[i], p))
			continue;
		methods[(*n)++] = s->rules[i].method;
		if (!s->all)
			break;
	}
	if (*n == 0)
		methods[(*n)++] = default_method(p);
}
