/*
 * Measurements read from a program's output (collect regex) or taken by
 * Veles, gathered into one profile: each a resource with a uid, an
 * optional subtype, an amount in some unit and extra fields. Amounts are
 * converted to one unit per profile, which also gives the profile's type
 * ("time" for times, "memory" for sizes, "mixed" otherwise), so that
 * `veles check` compares like with like whatever unit each line printed.
 */
#ifndef COLLECT_MEAS_H
#define COLLECT_MEAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct profile;
struct meas;

/* An extra field of a measurement: a number or a string. */
struct meas_field {
	const char *name; /* "iterations", "structure-unit-size", ... */
	bool is_num;
	double num;
	const char *text; /* !is_num: not NUL-terminated */
	size_t len;
	bool scaled; /* a number in the amount's unit, converted with it */
};

struct meas_rec {
	const char *uid; /* not NUL-terminated */
	size_t uid_len;
	const char *subtype; /* NULL: none */
	size_t subtype_len;
	double amount;
	/* The amount as printed (may be NULL): a conversion by a power of ten
	 * then shifts its decimal point rather than multiplying in binary. */
	const char *amount_text;
	size_t amount_len;
	const char *unit; /* NULL or empty: already in the profile's unit */
	size_t unit_len;
	const struct meas_field *fields;
	size_t nfields;
};

/*
 * A new, empty set. @unit is the profile's unit ("ms", "B", "items/s");
 * NULL lets the first record that has a unit decide: its dimension's base
 * unit (s for any time, B for any size) or, for a unit we do not know,
 * that unit as written.
 */
struct meas *meas_new(const char *unit);
void meas_free(struct meas *m);

/* The run number the next records carry as "order" (0: none). */
void meas_set_order(struct meas *m, int64_t order);

/*
 * Adds a measurement. ERR_INVALID, with a message saying why and nothing
 * kept, when its amount or unit does not fit the profile's unit. A record
 * without a unit is taken to be in the profile's unit when that was given
 * to meas_new() (or there is none), and refused when records' units
 * decided it.
 */
int meas_add(struct meas *m, const struct meas_rec *r);

size_t meas_count(const struct meas *m);
/* The profile's unit so far ("" when the amounts have none). */
const char *meas_unit(const struct meas *m);
/* The profile built so far: type, units and resources (the set keeps it). */
const struct profile *meas_profile(const struct meas *m);
/* Hands the profile over (never NULL); only meas_free() may follow. */
struct profile *meas_take(struct meas *m);

#endif
