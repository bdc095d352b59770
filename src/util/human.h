/*
 * Numbers for people: a value with the unit that keeps it short, as the
 * time summary, the memory report and the fuzzer's progress print them
 * (human_num), and as the flame graph's tooltips show a profile's values
 * (human_value, human_percent: `80.35 ms`, `1.2 MiB`, `14,482,100
 * samples`, `12.3%`, never `1.44821e+07`; web/veles-flame.js formats the
 * same way in the browser, keep the two in step). One ladder of units per
 * family and one rule for climbing it serve both.
 * (Columns of machine-read numbers use %.17g or the profile writer's
 * formatter instead; neither belongs here.)
 */
#ifndef UTIL_HUMAN_H
#define UTIL_HUMAN_H

#include <stddef.h>

struct buf;

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

/*
 * @v in @unit (a profile's unit: "ns", "us", "ms", "s", "B", "samples",
 * ...; NULL or "" for none), four significant digits: a time unit is
 * rescaled to ns, µs, ms or s and a byte unit to B, KiB, MiB, GiB or TiB
 * whichever keeps the number readable; integers of any other unit are
 * printed whole with thousands separated by commas.
 */
void human_value(struct buf *b, double v, const char *unit);

/* @pct percent: one decimal from 1%, two below ("0.25%"), "<0.01%" for less
 * but not 0; with @sign a "+" before growth. */
void human_percent(struct buf *b, double pct, int sign);

#endif
