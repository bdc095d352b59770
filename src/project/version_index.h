/*
 * The profiles registered to every version, from one pass over the store
 * (`veles log`): an open-addressed table keyed by version id, so each
 * version costs one lookup.
 */
#ifndef PROJECT_VERSION_INDEX_H
#define PROJECT_VERSION_INDEX_H

#include <stdbool.h>
#include <stddef.h>

struct store;
struct store_entry;
struct strpool;

struct version_slot {
	char id[41];
	struct store_entry *e;
	size_t n;
};

struct version_index {
	struct version_slot *slots;
	size_t nslots, count;
	/* The entries' strings: ten thousand profiles share a few types, and
	 * one pool beats twenty thousand small allocations. */
	struct strpool *strs;
};

/* Builds the index (@out zeroed first); @types_only keeps only each
 * profile's type (names and ids empty), which is all one line per version
 * shows. */
int version_index_build(struct store *s, bool types_only, struct version_index *out);
/* The profiles of version @id (a full id), or NULL when it has none. */
const struct version_slot *version_index_find(const struct version_index *m, const char *id);
void version_index_free(struct version_index *m);

#endif
