/* Internals shared by the profile modules; not for other directories. */
#ifndef PROFILE_PRIV_H
#define PROFILE_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

#define NO_TYPE UINT32_MAX

/* Lookups that make profile_type_add() and the reader O(1) per call. */
struct profile_index {
	struct strpool *sigs;  /* canonical text of each type's attributes */
	uint32_t *type_of_sig; /* by sig id */
	size_t type_of_sig_cap;
	uint32_t *type_of_key; /* by pool id of a "#key" */
	size_t type_of_key_cap;
	uint32_t *uid_next; /* by pool id of a uid's text: next N for "uid#N" */
	size_t uid_next_cap;
	size_t nindexed; /* types rows whose sig is in @sigs */
};

/* The type with key @key, added (with only its "#key") when missing. */
uint32_t profile_type_by_key(struct profile *p, const char *key, size_t n);

/* Indexes the "#key" of every type row, for a profile whose tables were
 * filled directly (the compact reader). */
void profile_index_keys(struct profile *p);

/* Renders a uid given as compact JSON ("source:function:line"). */
void uid_render_json(const char *json, size_t n, struct buf *out);

/* Marks rows [from, to) of @c absent. */
void col_mark_absent(struct column *c, size_t from, size_t to);
void col_reserve(struct column *c, size_t row);

/* A list of resources with at least this many bytes still to read is read
 * on two threads; tests lower it to compare both paths on small inputs,
 * and profile_split_merges counts the splits that were used. */
extern size_t profile_split_bytes;
extern unsigned long profile_split_merges;

#endif
