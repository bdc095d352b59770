/*
 * Numbers for people: a value with the unit that keeps it short, as the
 * time summary, the memory report and the fuzzer's progress print them.
 * (Columns of machine-read numbers use %.17g or the profile writer's
 * formatter instead; neither belongs here.)
 */
#ifndef UTIL_HUMAN_H
#define UTIL_HUMAN_H

#include <stddef.h>

enum human_kind {
	HUMAN_BYTES,   /* B, then kB, MB, GB, TB: powers of 1000 */
	HUMAN_SECONDS, /* µs below 1 ms, ms below 1 s, then s (hyperfine's) */
	HUMAN_COUNT,   /* whole up to 9999, then k, M, G joined to the number */
};

/*
 * Writes @v into @out (@len bytes) in the unit of @kind that suits @ref
 * (pass @v itself, or one value for a column that shares a unit) and
 * returns @out, cut short (terminated) where @len is too small. @prec is the digits after the
 * point, or when negative, that many significant digits; bytes and counts in their base unit are
 * written whole. "1.5 kB", "12.3 ms", "340 µs", "12.3k", "812".
 */
const char *human_num(char *out, size_t len, double v, double ref, enum human_kind kind, int prec);

#endif
