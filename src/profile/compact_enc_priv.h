/*
 * The compact writer's parts (compact_enc.c: the file, its sections and
 * columns; compact_values.c: a column's values in the encoding that suits
 * them), not for other files.
 */
#ifndef PROFILE_COMPACT_ENC_PRIV_H
#define PROFILE_COMPACT_ENC_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

#include "profile/profile.h"
#include "util/buf.h"

/* Encoded bytes are handed to zstd in pieces of this size. */
#define STAGE_SIZE (256 * 1024)
/* Each encoding is tried on the first this many values of a column. */
#define SAMPLE_VALUES 65536
/* The back-reference cache of ENC_REF: at most 1 << REF_BITS_MAX slots
 * (a column of fewer rows gets a table about twice its rows). */
#define REF_BITS_MAX 20

/* ENC_REF, ENC_GROUPED: the last row seen with a value of this hash. */
struct ref_slot {
	uint64_t v;
	uint32_t row1; /* row + 1; 0 when empty (rows past 2^32 - 2 are not kept) */
	uint8_t set;   /* ENC_GROUPED: GK_ODD or GK_EVEN, where row1 - 1 is marked */
};

struct enc {
	struct buf *out;
	ZSTD_CCtx *zc;
	struct buf stage; /* content not yet handed to zstd */
	size_t head;	  /* offset of the open section's header in @out */
	uint64_t rawsize; /* content bytes of the open section */
	bool zstd;	  /* the open section is compressed */
	uint32_t *remap;  /* pool id -> string table index, UINT32_MAX if unused */
	uint32_t nstrs;	  /* strings in the table */
	struct ref_slot *refs;
	unsigned ref_bits;     /* the slots in use are 1 << ref_bits */
	unsigned ref_cap_bits; /* the slots allocated */
	bool sampling;	       /* the stage holds a trial encoding: never flushed */
	bool whole;	       /* the open section is compressed in one piece at its end */
	bool slowest;	       /* ... at LEVEL_SMALL when under 1 MiB (not a resource column) */
	int gflags;	       /* ENC_GROUPED's GF_* */
	int err;
};

/* Room for @n more bytes in the open section's stage (flushing it to zstd
 * when full); stage_end() says where the writing stopped. */
uint8_t *stage_room(struct enc *e, size_t n);
void stage_end(struct enc *e, uint8_t *d);
void put_u8(struct enc *e, uint8_t v);
void put_varint(struct enc *e, uint64_t v);

/* The values of column @c (a resource column when @res): its encoding's
 * id, parameters and values. */
void write_values(struct enc *e, const struct profile *p, const struct column *c, bool res);
/* The resources' types, as integers in the encoding that suits them. */
void write_type_values(struct enc *e, const struct profile *p);

#endif
