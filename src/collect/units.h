/*
 * Units of measured amounts as programs print them ("12.3 ms", "4 KiB"):
 * which dimension a unit is of and its factor to that dimension's base
 * unit, so amounts printed in several units land in one unit per profile.
 */
#ifndef COLLECT_UNITS_H
#define COLLECT_UNITS_H

#include <stdbool.h>
#include <stddef.h>

enum unit_dim {
	UNIT_NONE,   /* no unit: a count, a score */
	UNIT_TIME,   /* base: s */
	UNIT_MEMORY, /* base: B */
	UNIT_OTHER,  /* a unit we do not know ("items/s"): kept as written */
};

struct unit {
	enum unit_dim dim;
	double scale;	  /* one of this unit in the base unit (ms: 1e-3); 1 for OTHER */
	const char *name; /* how profiles spell it: "ms", "us", "KiB"; NULL for OTHER */
};

/*
 * Reads the unit written as @text (@len bytes, surrounding blanks ignored):
 * ns, us, µs, ms, s, sec, min, h and their long forms; B, kB, KB, KiB, MB,
 * MiB, ... (kB and MB are powers of 1000, KiB, MiB and JEDEC's KB powers
 * of 1024). Empty text is UNIT_NONE; anything else UNIT_OTHER.
 */
void unit_parse(const char *text, size_t len, struct unit *u);

/* The profile type that holds amounts of @dim: "time", "memory" or "mixed". */
const char *unit_dim_type(enum unit_dim dim);

#endif
