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
 * measurements) is split into two halves of four digits, then pairs, then
 * digits, all eight at once in the lanes of one 64-bit word (a multiply by
 * a reciprocal per step), the leading zeros shifted out and the rest stored
 * as one 8-byte block. As fast here as a lookup table of "0000".."9999" was,
 * without building 40 KB of table in every process that writes a profile.
 * @dst needs 8 bytes of room.
 */
static inline size_t numfmt_small(char *dst, uint32_t v)
{
	uint64_t hi = v / 10000, lo = v - hi * 10000;
	uint64_t x = hi | (lo << 32), q;
	size_t n;

	/* Each 32-bit lane (< 10000) into two 16-bit lanes: x / 100, x % 100
	 * (10486 / 2^20 rounds down to x / 100 below 43699). */
	q = ((x * 10486) >> 20) & 0x0000007f0000007fULL;
	x = q | ((x - q * 100) << 16);
	/* Each 16-bit lane (< 100) into two bytes: x / 10, x % 10. */
	q = ((x * 103) >> 10) & 0x000f000f000f000fULL;
	x = q | ((x - q * 10) << 8);
	/* Leading zeros are the low bytes on a little-endian machine: their
	 * count is one bit scan, not a comparison per power of ten. */
	n = x ? 8 - (size_t)__builtin_ctzll(x) / 8 : 1;
	x += 0x3030303030303030ULL;
	x >>= 8 * (8 - n);
	memcpy(dst, &x, 8);
	return n;
}

#define NUMFMT_SMALL_OK(v)                                                                         \
	((v) >= 0 && (v) < 100000000 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)

/*
 * Writes the @n values of @v, each after the @seplen (1 or 2) bytes of
 * @sep, to @dst and returns the end: the writer's dense integer columns.
 * Where the processor has AVX2, four values in [0, 1e8) are split into
 * digits at once, in the lanes of one register. @dst needs
 * n * (NUMFMT_MAX + 2) bytes of room.
 */
char *numfmt_i32_list(char *dst, const int32_t *v, size_t n, const char *sep, size_t seplen);

/*
 * Writes @v (to NUMFMT_MAX bytes of room) as the shortest decimal that reads back as the same
 * double, always with a '.' or an exponent so a reader keeps it a double ("5.0", "1e+300"); NaN and
 * infinities become "null". Returns the length.
 */
size_t numfmt_f64(char *dst, double v);

/*
 * A measured value as JSON: a whole number (below 2^53) as an integer, so
 * a column that mixes 2 and 2.5 writes 2 back as it was read (Perun's
 * tools see an int where they wrote one); anything else as numfmt_f64().
 */
size_t numfmt_num(char *dst, double v);
/* True when numfmt_num() writes @v as an integer. */
static inline int numfmt_is_whole(double v)
{
	return v > -9007199254740992.0 && v < 9007199254740992.0 && v == (double)(int64_t)v;
}

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
