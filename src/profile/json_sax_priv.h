/*
 * What the JSON tokenizer's parts share: the generic event loop
 * (json_sax.c), strings with escapes (json_sax_esc.c), runs of integers
 * (json_sax_ints.c) and the fast paths over flat resource objects
 * (json_flat.c). Not for use outside src/profile/.
 */
#ifndef PROFILE_JSON_SAX_PRIV_H
#define PROFILE_JSON_SAX_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "profile/json_sax.h"

enum {
	ST_VALUE,     /* a value must follow (top level, after ':') */
	ST_ARR_FIRST, /* after '[': a value or ']' */
	ST_ARR_NEXT,  /* after ',' in an array: a value */
	ST_OBJ_FIRST, /* after '{': a key or '}' */
	ST_KEY,	      /* after ',' in an object: a key */
	ST_AFTER,     /* after a value: ',', a closer, or the end */
	ST_DONE,
};

static inline int64_t offset_of(const struct jsax *j, const char *at)
{
	return j->base + (at - j->start);
}

/*
 * Reads more input into the buffer (or moves a mapped file's window on).
 * Returns the number of bytes added, 0 at the end of input, negative on a
 * read error. Tokens restart from j->p, so they never straddle buffers.
 */
int jsax_refill(struct jsax *j);

/* ERR_PARSE: "NAME:LINE:COL: @what", the column that of @at. */
int jsax_error_at(struct jsax *j, const char *at, const char *what);

/*
 * The string at j->p (a '"') whose first escape is at @q, decoded into
 * j->sbuf: 1 when it ends in the buffer (j->s, j->slen set, j->p past
 * it), 0 when the buffer ends first (refill and retry from j->p), or a
 * negative error.
 */
int jsax_lex_escaped(struct jsax *j, const char *q);

static inline uint64_t load8(const char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/*
 * Reads the run of digits at @p (at most 8) as a number, eight bytes at a
 * time without a branch per digit (SWAR, as in simdjson). Returns the
 * number of digits; @p needs 8 readable bytes.
 */
static inline size_t digits8(const char *p, uint64_t *val)
{
	uint64_t x = load8(p);
	uint64_t hi = x & 0xf0f0f0f0f0f0f0f0ULL;
	uint64_t hi6 = (x + 0x0606060606060606ULL) & 0xf0f0f0f0f0f0f0f0ULL;
	uint64_t bad = (hi ^ 0x3030303030303030ULL) | (hi6 ^ 0x3030303030303030ULL);
	size_t n = bad ? (size_t)__builtin_ctzll(bad) / 8 : 8;
	uint64_t d;

	if (n == 0) {
		*val = 0;
		return 0;
	}
	/* The digits to the top bytes, zeros (leading zeros) below them. */
	d = (x - 0x3030303030303030ULL) << (8 * (8 - n));
	d = d * 10 + (d >> 8);
	d = (((d & 0x000000ff000000ffULL) * 0x000f424000000064ULL) +
	     (((d >> 16) & 0x000000ff000000ffULL) * 0x0000271000000001ULL)) >>
	    32;
	*val = d;
	return n;
}

/*
 * digits8() when the run's length @n (1 to 8) is known already: true and
 * the value when the first @n bytes at @p are all digits. @p needs 8
 * readable bytes.
 */
static inline bool digits_n(const char *p, size_t n, uint64_t *val)
{
	uint64_t x = load8(p);
	uint64_t hi = x & 0xf0f0f0f0f0f0f0f0ULL;
	uint64_t hi6 = (x + 0x0606060606060606ULL) & 0xf0f0f0f0f0f0f0f0ULL;
	uint64_t bad = (hi ^ 0x3030303030303030ULL) | (hi6 ^ 0x3030303030303030ULL);
	unsigned shift = 8 * (8 - (unsigned)n);
	uint64_t d;

	if ((bad << shift) != 0)
		return false;
	d = (x - 0x3030303030303030ULL) << shift;
	d = d * 10 + (d >> 8);
	*val = (((d & 0x000000ff000000ffULL) * 0x000f424000000064ULL) +
		(((d >> 16) & 0x000000ff000000ffULL) * 0x0000271000000001ULL)) >>
	       32;
	return true;
}

static const uint64_t pow10_u64[9] = {1,      10,      100,	 1000,	   10000,
				      100000, 1000000, 10000000, 100000000};

/* The digits of a plain integer of up to 18 digits at @q (32 readable
 * bytes), the bulk of a profile; returns their end, or NULL for anything
 * that is not one. The caller checks what follows: a '.' or an exponent
 * makes it a double. */
static inline __attribute__((always_inline)) const char *int_digits(const char *q, int64_t *out)
{
	uint64_t m, part;
	size_t n, k;
	bool neg;

	neg = *q == '-';
	q += neg;
	n = digits8(q, &m);
	if (n == 8) {
		k = digits8(q + 8, &part);
		m = m * pow10_u64[k] + part;
		n += k;
		if (k == 8) {
			k = digits8(q + 16, &part);
			if (k > 2)
				return NULL; /* may not fit: the careful path */
			m = m * pow10_u64[k] + part;
			n += k;
		}
	}
	if (n == 0 || (*q == '0' && n > 1))
		return NULL;
	*out = neg ? -(int64_t)m : (int64_t)m;
	return q + n;
}

/* int_digits(), and nothing of a fraction or an exponent after them. */
static inline __attribute__((always_inline)) const char *int_at(const char *q, int64_t *out)
{
	q = int_digits(q, out);
	if (q && (*q == '.' || *q == 'e' || *q == 'E'))
		return NULL;
	return q;
}

#endif
