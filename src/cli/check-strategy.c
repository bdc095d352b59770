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

static bool rule_matches(const struct cli_ctx *ctx, size_t i, const struct profile *p)
{
	static const char *const fields[] = {"type", "cmd", "workload", "collector",
					     "postprocessor"};
	bool ok = true;

	for (size_t f = 0; f < ARRAY_SIZE(fields) && ok; f++) {
		char *want = rule_field(ctx, i, fields[f]);

		if (!want)
			continue;
		switch (f) {
		case 0:
			ok = p->type && strcmp(want, p->type) == 0;
			break;
		case 1:
			ok = glob_or_equal(want, p->cmd);
			break;
		case 2:
			ok = glob_or_equal(want, p->workload);
			break;
		case 3:
			ok = p->collector && strcmp(want, p->collector) == 0;
			break;
		default:
			ok = ran_postprocessor(p, want);
		}
		free(want);
	}
	return ok;
}

int check_strategies_check(const struct cli_ctx *ctx)
{
	struct profile *p = profile_new();
	const char *methods[CHECK_MAX_METHODS];
	size_t n;
	int ret = cli_config_validate(ctx);

	/* An empty profile matches no rule with a field, so every rule's method
	 * and the apply value are looked at. */
	if (ret == 0)
		ret = check_methods_for(ctx, p, methods, &n);
	for (size_t i = 0; ret == 0; i++) {
		char *method = rule_field(ctx, i, "method");
		const char *const *known = check_method_names();

		if (!method)
			break;
		while (*known && strcmp(*known, method))
			known++;
		if (!*known)
			ret = err_set(ERR_INVALID,
				      "degradation.strategies.%zu.method: unknown method '%s'", i,
				      method);
		free(method);
	}
	profile_free(p);
	return ret;
}

/* Without a rule: stat on repeated measurements, int on fitted models. */
static const char *default_method(const struct profile *p)
{
	bool has_models = p->models && strcmp(p->models, "[]") != 0;
	bool is_time = p->type && strcmp(p->type, "time") == 0;

	return has_models && !is_time ? "int" : "stat";
}

int check_methods_for(const struct cli_ctx *ctx, const struct profile *p,
		      const char *methods[CHECK_MAX_METHODS], size_t *n)
{
	char *apply = cli_config_string(ctx, "degradation.apply");
	bool all = apply && strcmp(apply, "all") == 0;
	int ret = 0;

	*n = 0;
	if (apply && !all && strcmp(apply, "first") != 0)
		ret = err_set(ERR_INVALID, "degradation.apply is '%s': use first or all", apply);
	free(apply);
	for (size_t i = 0; ret == 0 && *n < CHECK_MAX_METHODS; i++) {
		char *method = rule_field(ctx, i, "method");
		const char *const *known;

		if (!method)
			break;
		for (known = check_method_names(); *known && strcmp(*known, method); known++)
			;
		if (!*known)
			ret = err_set(ERR_INVALID,
				      "degradation.strategies.%zu.method: unknown method '%s'", i,
				      method);
		else if (rule_matches(ctx, i, p))
			methods[(*n)++] = *known;
		free(method);
		if (*n && !all)
			break;
	}
	if (ret == 0 && *n == 0)
		methods[(*n)++] = default_method(p);
	return ret;
}
