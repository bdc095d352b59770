/*
 * A profile's amounts grouped by location: uid, plus "[subtype]" when the
 * resource has a subtype. Every comparison of two profiles starts here.
 */
#ifndef ANALYZE_SAMPLES_H
#define ANALYZE_SAMPLES_H

#include <stddef.h>

struct profile;

struct sample_group {
	char *location;
	double *v;
	/* samples_build_sized(): each value's size (its "per" attribute, NaN
	 * where a row has none), parallel to v; NULL otherwise. */
	double *x;
	size_t n, cap;
};

struct sample_set {
	struct sample_group *g; /* sorted by location once built */
	size_t n;
};

/* Groups the numeric values of @of ("amount" when NULL); rows without one
 * are skipped. */
void samples_build(const struct profile *p, const char *of, struct sample_set *out);
/* The same, grouped by the value of attribute @by instead of the location
 * ("(none)" for rows without it); @by NULL is samples_build(). */
void samples_build_by(const struct profile *p, const char *of, const char *by,
		      struct sample_set *out);
/* samples_build(), each value with its size: the value of attribute
 * @per (structure-unit-size, what a workload generator varies). */
void samples_build_sized(const struct profile *p, const char *of, const char *per,
			 struct sample_set *out);
/* The group at @location, or NULL. */
const struct sample_group *samples_find(const struct sample_set *s, const char *location);
/*
 * Two built sets walked side by side by location, from *@i and *@j at 0:
 * the next location, with its group in each (NULL in the set that lacks
 * it), past which *@i and *@j move; NULL once both sets are done.
 */
const char *samples_next_pair(const struct sample_set *sa, const struct sample_set *sb, size_t *i,
			      size_t *j, const struct sample_group **a,
			      const struct sample_group **b);
void samples_free(struct sample_set *s);

#endif
