/* Inside the config module: the parsed file. */
#ifndef CONFIG_CONFIG_PRIV_H
#define CONFIG_CONFIG_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "util/strmap.h"

/* A scalar (key = dotted path) or a mapping key (value NULL), with where
 * it starts in the file, so later checks can point at it. */
struct config_item {
	char *key;
	char *value;
	size_t line, col; /* 1-based */
};

struct config {
	char *name;		   /* the file, for messages */
	struct config_item *items; /* scalars, in file order */
	size_t n, cap;
	struct config_item *keys; /* every mapping key, in file order */
	size_t nkeys, keys_cap;
	/* Lookups in constant time, so that reading a file of N list items
	 * and asking for each is linear in N (issue 13, item 10). */
	struct strmap item_at; /* items[i].key -> i (numbered as items are) */
	struct strmap key_num; /* keys[].key -> its number; first_key[number] */
	size_t *first_key;     /* the index in keys of each distinct key's first */
	size_t first_cap;
	struct strmap known; /* every item and key, and each of their prefixes at a dot */
};

/* Whether @key is set, as a scalar or as a section with keys below it. */
bool config_priv_has(const struct config *c, const char *key);
/* The first mapping key @key, or NULL. */
const struct config_item *config_priv_key(const struct config *c, const char *key);

#endif
