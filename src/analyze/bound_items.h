/*
 * The resources of a bounds profile as records (source, function, line,
 * column, local or total, bound, class), and the pairing of two profiles'
 * records that `check`, `diff` and the bounds view share.
 */
#ifndef ANALYZE_BOUND_ITEMS_H
#define ANALYZE_BOUND_ITEMS_H

#include <stdbool.h>
#include <stddef.h>

struct profile;

struct bound_item {
	char *source, *function;
	int line, column;		  /* as the uid has them (bprofile.c says what they are) */
	bool total;			  /* a function's total bound, not a loop's */
	const char *bound, *cls, *reason; /* the profile's strings; reason may be NULL */
	int ordinal;	/* the loop's place in its function, from 0; -1 for a total */
	char *location; /* "source:function:line:column" */
};

/* The bound resources of @p, by source, function and line. Resources
 * without a source location uid or a bound are left out. */
int bound_items(const struct profile *p, struct bound_item **out, size_t *n);
void bound_items_free(struct bound_item *v, size_t n);

/* A loop or function of either profile, and its record in each (NULL
 * where that profile lacks it). */
struct bound_pair {
	const struct bound_item *base, *target;
};

/*
 * Pairs the records of two profiles: the same uid first, then, in a
 * function with as many unmatched loops on both sides, in their order, so
 * that a loop moved by lines added above it is still the same loop.
 */
size_t bound_pairs(const struct bound_item *a, size_t na, const struct bound_item *b, size_t nb,
		   struct bound_pair **out);

#endif
