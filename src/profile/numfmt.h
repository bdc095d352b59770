/*
 * Number formatting and parsing for the profile JSON reader and writer.
 * Hand-written because numbers are most of a profile's bytes: printf and
 * strtod would dominate a load or a save.
 */
#ifndef PROFILE_NUMFMT_H
#define PROFILE_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

/* Longest text either formatter writes, without a terminator. */
#define NUMFMT_MAX 32

/* Writes @v in decimal to @dst (no terminator); returns the length. @dst
 * needs NUMFMT_MAX bytes of room: the fast path writes whole words. */
size_t numfmt_i64(char *dst, int64_t v);

/*
 * Writes @v (to NUMFMT_MAX bytes of room) as the shortest decimal that reads back as the same
 * double, always with a '.' or an exponent so a reader keeps it a double ("5.0", "1e+300"); NaN and
 * infinities become "null". Returns the length.
 */
size_t numfmt_f64(char *dst, double v);

enum numfmt_kind { NUM_BAD = -1, NUM_INT = 0, NUM_DBL = 1 };

/*
 * Parses one JSON number occupying exactly @s[0..n). Integers that fit go to
 * @i; everything else (fractions, exponents, huge integers) to @d, exactly
 * rounded (Clinger's fast path, strtod otherwise).
 */
enum numfmt_kind numfmt_parse(const char *s, size_t n, int64_t *i, double *d);

#endif
