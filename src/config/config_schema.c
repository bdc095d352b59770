/*
 * What config.yml may hold: the known keys (docs/config.md lists them), and
 * messages that point at a key's line and column.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/config_priv.h"
#include "util/buf.h"
#include "util/common.h"

/*
 * Patterns of dotted keys: "#" stands for a list index, "**" for anything
 * below (free-form maps such as a collector's params). A key is known when
 * it matches a pattern or is the section above one.
 */
static const char *const known_keys[] = {
	"collect.warn_dirty",
	"add.keep_profile",
	"cmds.#",
	"args.#",
	"workloads.#",
	"collectors.#.name",
	"collectors.#.params.**",
	"postprocessors.#.name",
	"postprocessors.#.params.**",
	"execute.pre_run.#",
	"profiles.register_after_run",
	"generators.workload.#.**",
	"degradation.apply",
	"degradation.collect_before_check",
	"degradation.log_collect",
	"format.sort_profiles_by",
	"format.output_profile_template",
	"degradation.strategies.#.method",
	"degradation.strategies.#.type",
	"degradation.strategies.#.cmd",
	"degradation.strategies.#.workload",
	"degradation.strategies.#.collector",
	"degradation.strategies.#.postprocessor",
	"degradation.strategies.#.args",
	"degradation.strategies.#.params",
	NULL,
};

/* True when @key is @pattern, a section above it, or (with "**") below it. */
static bool key_matches(const char *key, const char *pattern)
{
	for (;;) {
		size_t kl = strcspn(key, "."), pl = strcspn(pattern, ".");

		if (pl == 2 && memcmp(pattern, "**", 2) == 0)
			return true;
		if (pl == 1 && pattern[0] == '#' ? !mem_all_digits(key, kl)
						 : kl != pl || memcmp(key, pattern, kl) != 0)
			return false;
		key += kl;
		pattern += pl;
		if (!*key)
			return true; /* the key itself, or a section above the pattern */
		if (!*pattern)
			return false; /* the key goes deeper than the pattern allows */
		key++;
		pattern++;
	}
}

bool config_key_known(const char *key)
{
	for (const char *const *p = known_keys; *p; p++)
		if (key_matches(key, *p))
			return true;
	return false;
}

int config_validate(const struct config *c)
{
	for (size_t i = 0; c && i < c->nkeys; i++)
		if (!config_key_known(c->keys[i].key))
			return err_set(ERR_INVALID, "%s:%zu:%zu: unknown key '%s'", c->name,
				       c->keys[i].line, c->keys[i].col, c->keys[i].key);
	return 0;
}

const char *config_name(const struct config *c)
{
	return c->name;
}

/* The position of @key: its own line as a mapping key, else its value's. */
static const struct config_item *find_pos(const struct config *c, const char *key)
{
	for (size_t i = 0; i < c->nkeys; i++)
		if (strcmp(c->keys[i].key, key) == 0)
			return &c->keys[i];
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->items[i].key, key) == 0)
			return &c->items[i];
	return NULL;
}

int config_error_at(const struct config *c, const char *key, const char *fmt, ...)
{
	const struct config_item *at = find_pos(c, key);
	struct buf b = BUF_INIT;
	va_list ap;
	int ret;

	if (at)
		buf_addf(&b, "%s:%zu:%zu: ", c->name, at->line, at->col);
	else
		buf_addf(&b, "%s: ", c->name);
	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	ret = err_set(ERR_INVALID, "%s", buf_str(&b));
	buf_release(&b);
	return ret;
}

bool config_has(const struct config *c, const char *key)
{
	size_t kl = strlen(key);

	for (size_t i = 0; c && i < c->nkeys; i++)
		if (strncmp(c->keys[i].key, key, kl) == 0 &&
		    (c->keys[i].key[kl] == '\0' || c->keys[i].key[kl] == '.'))
			return true;
	for (size_t i = 0; c && i < c->n; i++)
		if (strncmp(c->items[i].key, key, kl) == 0 &&
		    (c->items[i].key[kl] == '\0' || c->items[i].key[kl] == '.'))
			return true;
	return false;
}
