/*
 * A map from strings to indices (open addressing, FNV-1a): numbering the
 * distinct values of a column or the groups of a query in one pass.
 */
#ifndef UTIL_STRMAP_H
#define UTIL_STRMAP_H

#include <stdbool.h>
#include <stddef.h>

struct strmap {
	char **keys; /* copies; NULL = free slot */
	size_t *vals;
	size_t n, cap; /* cap is 0 or a power of two */
};

/* The value of @key, or SIZE_MAX when absent. */
size_t strmap_get(const struct strmap *m, const char *key);
/* The value of @key; when absent, stores @key with value m->n (the number
 * of keys before it), so keys are numbered 0, 1, ... in insertion order.
 * Sets *@added (may be NULL). */
size_t strmap_intern(struct strmap *m, const char *key, bool *added);
void strmap_free(struct strmap *m);

#endif
