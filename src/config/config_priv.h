/* Inside the config module: the parsed file. */
#ifndef CONFIG_CONFIG_PRIV_H
#define CONFIG_CONFIG_PRIV_H

#include <stddef.h>

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
};

#endif
