/*
 * `veles add` and `veles rm` below the command line: profiles loaded,
 * checked and given their version as origin, then registered version by
 * version in one store update each; a stored profile checked to belong to
 * the version it is removed from.
 */
#ifndef PROJECT_ADD_H
#define PROJECT_ADD_H

#include <stdbool.h>
#include <stddef.h>

#include "project/select.h"
#include "store/store.h"
#include "util/buf.h"

struct project;

struct add_opts {
	bool force; /* file a profile of another version under this one */
	bool own;   /* each profile's version is its origin */
	/* After each version's store update (may be NULL): @n items, whether
	 * each was added (false: already there) and its blob id. */
	void (*registered)(void *arg, const char *version, const struct store_item *items,
			   const bool *added, char (*blobs)[41], size_t n);
	void *arg;
};

/* Everything one `veles add` registers, each profile with its version. */
struct add_set {
	size_t n;
	struct profile_ref *refs;
	struct store_item *items;
	struct buf *data;
	char **types;
	char (*versions)[41];
	bool *added;
	char (*blobs)[41];
};

void add_set_init(struct add_set *a, size_t n);
/* Frees the set, of which the first @done entries were prepared. */
void add_set_free(struct add_set *a, size_t done);
/*
 * Resolves profile @i of @a, named @spec (pending by default), loads and
 * checks it and makes what the store keeps, with @version (or under
 * o->own its origin) as origin. A profile of another version is refused
 * unless o->force (then a warning).
 */
int add_prepare(struct project *pr, const struct add_opts *o, const char *version,
		struct add_set *a, size_t i, const char *spec);
/* Registers the prepared profiles: one store update per version, in the
 * order the versions first appear. */
int add_register(struct project *pr, const struct add_opts *o, struct add_set *a);

/* 0 when stored @ref is registered with @version (a profile id found in
 * another version must not remove a same-named profile here). */
int add_stored_in_version(struct project *pr, const char *version, const struct profile_ref *ref);

#endif
