/*
 * The compact reader's parts (compact_dec.c: the file, its sections and
 * header; compact_dec_values.c: a column's values), not for other files.
 */
#ifndef PROFILE_COMPACT_DEC_PRIV_H
#define PROFILE_COMPACT_DEC_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/compact_priv.h"
#include "profile/profile.h"
#include "util/common.h"

struct dec {
	const char *name;
	struct profile *p;
	uint32_t *strs; /* string table index -> pool id */
	uint64_t nstrs;
	uint8_t *checked; /* per string: 1 checked as JSON text */
	bool has_meta, has_strs, has_types;
	bool res_col; /* reading a column of the resources */
	enum dec_mode {
		DEC_ALL,    /* the whole profile */
		DEC_HEADER, /* META only (profile_decode_header) */
		DEC_CHECK,  /* every column read and checked, then dropped */
	} mode;
	uint64_t ntypes, nres;
};

static inline int corrupt(const struct dec *d, const char *what)
{
	return err_set(ERR_PARSE, "%s: corrupt compact profile: %s", d->name, what);
}

/* Whether @s is one JSON value and nothing else. */
bool cpt_json_ok(const char *s, size_t n);
/* Which rows below @len have a value: *absent NULL for all of them. */
int read_presence(struct dec *d, struct cur *c, uint64_t len, uint8_t **absent, uint64_t *npresent);
/* A column's values (its encoding's id first) into @v[row], 0 for a row
 * without one; text as pool ids in 4-byte cells. */
int read_cells(struct dec *d, struct cur *c, unsigned kind, int64_t *v, uint64_t len,
	       const uint8_t *absent, uint64_t npresent);
/* Integers in 4-byte cells when they all fit, in place. */
bool narrow_ints(int64_t *v, uint64_t len);

#endif
