/*
 * The compact profile format shared by its encoder (compact_enc.c) and
 * decoder (compact_dec.c): a header, then sections, each a tag, a codec
 * and two lengths; every column a section of its own, its values in the
 * encoding that suits it, zstd-compressed. docs/profile-format.md is the
 * specification; this header only names its numbers.
 */
#ifndef PROFILE_COMPACT_PRIV_H
#define PROFILE_COMPACT_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/xalloc.h"

#define CPT_MAGIC "\x89VPF\r\n\x1a\n"
#define CPT_MAGIC_LEN 8
#define CPT_MAJOR 1
#define CPT_MINOR 0
#define CPT_HEADER_LEN 16
#define CPT_SECTION_HEAD 21		   /* tag 4, codec 1, size 8, rawsize 8 */
#define CPT_TRAILER (CPT_SECTION_HEAD + 4) /* the END section and its CRC-32 */

/* A section's content is at most this long: a column of a billion rows
 * is chunked by no writer yet, and a reader never allocates more. */
#define CPT_SECTION_MAX (1ULL << 32)

enum cpt_codec { CPT_STORED = 0, CPT_ZSTD = 1 };

/* Members of the META section. */
enum cpt_meta {
	META_ORIGIN = 1,
	META_TYPE = 2,
	META_CMD = 3,
	META_ARGS = 4,
	META_WORKLOAD = 5,
	META_COLLECTOR = 6,
	META_COLLECTOR_PARAMS = 7, /* JSON */
	META_POSTPROCESSORS = 8,   /* JSON */
	META_MODELS = 9,	   /* JSON */
	META_UNIT = 10,		   /* pair: key, string */
	META_HEADER_MEMBER = 11,   /* pair: key, JSON */
	META_MEMBER = 12,	   /* pair: key, JSON */
	META_SHAPE = 13,	   /* layout, args_is_params, types, resources */
	META_TIMESTAMP = 14,	   /* 8 bytes, an IEEE-754 double */
};

/* How a column's values are written. */
enum cpt_enc {
	ENC_CONST = 0,	 /* one value for every cell */
	ENC_VARINT = 1,	 /* each value */
	ENC_DELTA = 2,	 /* each value less the one before */
	ENC_REF = 3,	 /* a distance back to a row with the same value, or a delta */
	ENC_PLANES = 4,	 /* deltas at a fixed width, byte k of every value together */
	ENC_DECIMAL = 5, /* doubles: integers scaled by 10^-d, in one of the above */
	ENC_RAW = 6,	 /* doubles: their 8 bytes, byte k of every value together */
	ENC_GROUPED = 7, /* resources: a reference or a delta per value, by type */
};

/* The token kinds of ENC_GROUPED, and the flags after its id. */
enum { GK_DELTA = 0, GK_ODD = 1, GK_EVEN = 2 };
enum { GF_REFS = 1, GF_DELTAS = 2 };

/* The resources' type column has no name: its section tag says what it is. */
#define TAG_META "META"
#define TAG_STRS "STRS"
#define TAG_TCOL "TCOL"
#define TAG_RTYP "RTYP"
#define TAG_RCOL "RCOL"
#define TAG_END "END."

static inline uint64_t zz_enc(int64_t v)
{
	uint64_t u = (uint64_t)v;

	return (u << 1) ^ (0 - (u >> 63));
}

static inline int64_t zz_dec(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* At most 10 bytes at @d; returns the end. */
static inline uint8_t *varint_put(uint8_t *d, uint64_t v)
{
	while (v >= 0x80) {
		*d++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*d++ = (uint8_t)v;
	return d;
}

/* A bounded reader over decoded bytes: every read checks what is left,
 * and a read past the end sets @bad and yields zeros. */
struct cur {
	const uint8_t *p, *end;
	bool bad;
};

static inline uint64_t cur_varint(struct cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (c->p < c->end && shift < 64) {
		uint8_t b = *c->p++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
		shift += 7;
	}
	c->bad = true;
	return 0;
}

static inline uint8_t cur_u8(struct cur *c)
{
	if (c->p >= c->end) {
		c->bad = true;
		return 0;
	}
	return *c->p++;
}

/* @n bytes, or NULL (and @bad) when fewer are left. */
static inline const uint8_t *cur_take(struct cur *c, uint64_t n)
{
	const uint8_t *at = c->p;

	if (n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		c->p = c->end;
		return NULL;
	}
	c->p += n;
	return at;
}

/*
 * Marks on row positions, counted by prefix: ENC_GROUPED names an earlier
 * row by how many marked rows lie between it and the current one, which
 * both sides count alike. A bit per row, and a Fenwick tree of the counts
 * per 64 rows: 2.5 MB for ten million rows where a tree over the rows
 * themselves took 40.
 */
struct fenwick {
	uint64_t *bits;
	uint32_t *t; /* t[1..nb]: the tree over blocks of 64 rows */
	size_t nb;
	uint32_t total;
};

static inline void fw_init(struct fenwick *f, size_t rows)
{
	f->nb = rows / 64 + 1;
	f->bits = xcalloc(f->nb, sizeof(*f->bits));
	f->t = xcalloc(f->nb + 1, sizeof(*f->t));
	f->total = 0;
}

static inline void fw_release(struct fenwick *f)
{
	free(f->bits);
	free(f->t);
}

/* Marks row @i (@d = 1, it is not marked) or unmarks it (@d = -1). */
static inline void fw_add(struct fenwick *f, size_t i, int d)
{
	f->bits[i / 64] ^= (uint64_t)1 << (i % 64);
	f->total += (uint32_t)d;
	for (size_t b = i / 64 + 1; b <= f->nb; b += b & -b)
		f->t[b] += (uint32_t)d;
}

/* Marks in [0, i). */
static inline uint32_t fw_prefix(const struct fenwick *f, size_t i)
{
	uint64_t low = f->bits[i / 64] & (((uint64_t)1 << (i % 64)) - 1);
	uint32_t s = (uint32_t)__builtin_popcountll(low);

	for (size_t b = i / 64; b > 0; b -= b & -b)
		s += f->t[b];
	return s;
}

/* The position of the k-th mark (1-based); 1 <= k <= f->total. */
static inline size_t fw_kth(const struct fenwick *f, uint32_t k)
{
	size_t pos = 0, step = 1;
	uint64_t w;

	while (step * 2 <= f->nb)
		step *= 2;
	for (; step; step /= 2)
		if (pos + step <= f->nb && f->t[pos + step] < k) {
			pos += step;
			k -= f->t[pos];
		}
	/* Block @pos holds it: the k-th set bit of its word. */
	w = f->bits[pos];
	while (--k)
		w &= w - 1;
	return pos * 64 + (size_t)__builtin_ctzll(w);
}

static inline uint64_t le_get(const uint8_t *d, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = (v << 8) | d[n];
	return v;
}

static inline void le_put(uint8_t *d, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++, v >>= 8)
		d[i] = (uint8_t)v;
}

#endif
