/* Settings looked up through the configuration files, nearest first. */
#include <stdlib.h>
#include <string.h>

#include "analyze/degrade.h"
#include "analyze/strategy.h"
#include "config/config.h"
#include "project/project.h"
#include "project/project_config.h"
#include "project/settings.h"
#include "util/common.h"
#include "util/error.h"

/* The files, nearest first (project/project_config.h): outside a
 * project, the user's alone. */
static void setting_files(const struct project *p, struct project_config_files *f)
{
	project_config_files(p ? p->root : NULL, f);
}

/* The nearest configuration file that sets @key (caller frees), or NULL. */
static struct config *nearest_with(const struct project *p, const char *key)
{
	struct project_config_files f;
	struct config *found = NULL;

	setting_files(p, &f);
	for (size_t i = 0; i < f.n && !found; i++) {
		struct config *c;

		if (config_load(f.path[i], &c) == 0) {
			if (config_get(c, key))
				found = c;
			else
				config_free(c);
		}
	}
	project_config_files_release(&f);
	return found;
}

int project_settings_check(const struct project *p)
{
	struct project_config_files f;
	struct config *cfgs[PROJECT_CONFIG_MAX];
	int ret;

	setting_files(p, &f);
	ret = project_config_load(&f, cfgs);
	if (ret == 0)
		project_config_unload(cfgs);
	project_config_files_release(&f);
	return ret;
}

char *project_setting(const struct project *p, const char *key)
{
	struct config *c = nearest_with(p, key);
	char *value = c ? xstrdup(config_get(c, key)) : NULL;

	if (c)
		config_free(c);
	return value;
}

static void strv_push(char ***v, size_t *n, char *s)
{
	*v = xrealloc(*v, (*n + 2) * sizeof(**v));
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
}

char **project_setting_list(const struct project *p, const char *key, size_t *n)
{
	char **v = xcalloc(1, sizeof(*v));
	char *item = project_setting(p, key);

	*n = 0;
	/* A scalar is a list of one; a list's items are KEY.0, KEY.1, ... */
	if (item) {
		strv_push(&v, n, item);
		return v;
	}
	for (;;) {
		char *k = xasprintf("%s.%zu", key, *n);

		item = project_setting(p, k);
		free(k);
		if (!item)
			return v;
		strv_push(&v, n, item);
	}
}

bool project_setting_bool(const struct project *p, const char *key, bool def)
{
	struct config *c = nearest_with(p, key);
	bool value = c ? config_bool(c, key, def) : def;

	if (c)
		config_free(c);
	return value;
}

/* Perun's default is all: every matching rule's method, each once. */
static int load_apply(const struct project *p, bool *all)
{
	char *apply = project_setting(p, "degradation.apply");
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

		if (!method) {
			free(key);
			break;
		}
		s->rules = xrealloc(s->rules, (s->n + 1) * sizeof(*s->rules));
		r = &s->rules[s->n++];
		memset(r, 0, sizeof(*r));
		for (size_t f = 0; f < CHECK_RULE_FIELDS; f++) {
			char *fk = xasprintf("degradation.strategies.%zu.%s", i,
					     check_rule_field_names[f]);

			r->field[f] = config_get(c, fk) ? xstrdup(config_get(c, fk)) : NULL;
			free(fk);
		}
		r->method = check_method_canonical(method);
		if (!r->method)
			ret = config_error_at(c, key, "%s: unknown method '%s'", key, method);
		free(key);
	}
	config_free(c);
	return ret;
}

/*
 * As Perun gathers them: the project's rules (the local file's, then the
 * tracked file's), then the user's (Perun's local.yml, then shared.yml),
 * in one list.
 */
int check_strategies_load(const struct project *p, struct check_strategies *s)
{
	struct project_config_files f;
	int ret = project_settings_check(p);

	memset(s, 0, sizeof(*s));
	if (ret == 0)
		ret = load_apply(p, &s->all);
	if (ret < 0)
		return ret;
	/* (Listing the files clears the error message: after the checks.) */
	setting_files(p, &f);
	for (size_t i = 0; i < f.n && ret == 0; i++)
		ret = load_rules(f.path[i], s);
	project_config_files_release(&f);
	if (ret < 0)
		check_strategies_free(s);
	return ret;
}
