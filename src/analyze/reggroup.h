/*
 * Rows grouped by uid and subtype, for regression analysis, in the order
 * the groups first appear. The time collector gives real, user and sys the
 * same uid (the command): fitting them together would fit noise. A group is a list of row ranges:
 * the typed layout keeps each type's rows together, so a uid is one or a few ranges and grouping
 * costs next to no memory; when rows of different uids interleave (more
 * ranges than a quarter of the rows), every range is one row and the list
 * is a plain index of rows.
 */
#ifndef ANALYZE_REGGROUP_H
#define ANALYZE_REGGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct profile;
struct strpool;

struct reg_groups {
	struct strpool *uids; /* group g's name is string g (0 is "", no uid) */
	size_t ngroups;
	const char **uid; /* group g's uid */
	/* Group g's subtype, or NULL when its uid has only one (so a
	 * profile of one subtype per uid is fitted, and named, by uid). */
	const char **subtype;
	size_t *start; /* group g's ranges are item[start[g] .. start[g + 1]) */
	/* Ranges as (first row, row count) pairs when @ranges, else rows. */
	uint32_t *item;
	bool ranges;
};

void reg_groups_build(const struct profile *p, struct reg_groups *g);
void reg_groups_free(struct reg_groups *g);

/* The number of rows in group @k. */
size_t reg_group_size(const struct reg_groups *g, size_t k);

#endif
