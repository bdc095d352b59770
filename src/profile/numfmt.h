/*
 * Number formatting and parsing for the profile JSON reader and writer.
 * Hand-written because numbers are most of a profile's bytes: printf and
 * strtod would dominate a load or a save.
 */
#ifndef PROFILE_NUMFMT_H
#define PROFILE_NUMFMT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Longest text either formatter writes, without a terminator. */
#define NUMFMT_MAX 32

/* Writes @v in decimal to @dst (no terminator); returns the length. @dst
 * needs NUMFMT_MAX bytes of room: the fast path writes whole words. */
size_t numfmt_i64(char *dst, int64_t v);

/*
 * The writer's hot loop, inlined where it runs: a number in [0, 1e8) (most
 * measurements) is two halves of four digits, each one load from a table of
 * "0000".."9999" (40 KB, built by numfmt_prepare(), stays in cache), with
 * the leading zeros shifted out in a register and the rest stored as one
 * 8-byte block. About twice as fast here as computing the digits with
 * multiplications. @dst needs 8 bytes of room; call numfmt_prepare() once
 * first.
 */
extern uint32_t numfmt_quad[10000];
void numfmt_prepare(void);

static inline size_t numfmt_small(char *dst, uint32_t v)
{
	uint64_t hi = v / 10000, lo = v - hi * 10000;
	uint64_t block = numfmt_quad[hi] | ((uint64_t)numfmt_quad[lo] << 32);
	size_t n = 1 + (v >= 10) + (v >= 100) + (v >= 1000) + (v >= 10000) + (v >= 100000) +
		   (v >= 1000000) + (v >= 10000000);

	/* Leading zeros are the low bytes on a little-endian machine. */
	block >>= 8 * (8 - n);
	memcpy(dst, &block, 8);
	return n;
}

#define NUMFMT_SMALL_OK(v)                                                                         \
	((v) >= 0 && (v) < 100000000 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)

/*
 * Writes @v (to NUMFMT_MAX bytes of room) as the shortest decimal that reads back as the same
 * double, always with a '.' or an exponent so a reader keeps it a double ("5.0", "1e+300"); NaN and
 * infinities become "null". Returns the length.
 */
size_t numfmt_f64(char *dst, double v);

/*
 * The same text as numfmt_f64(), found faster in a run of similar numbers:
 * @hint holds the decimals the previous one needed (start it at 0), so most
 * numbers cost two trial divisions instead of one per decimal.
 */
size_t numfmt_f64_hint(char *dst, double v, int *hint);

enum numfmt_kind { NUM_BAD = -1, NUM_INT = 0, NUM_DBL = 1 };

/*
 * Parses one JSON number occupying exactly @s[0..n). Integers that fit go to
 * @i; everything else (fractions, exponents, huge integers) to @d, exactly
 * rounded (Clinger's fast path, strtod otherwise).
 */
enum numfmt_kind numfmt_parse(const char *s, size_t n, int64_t *i, double *d);

#endif
