/*
 * The table of `veles diff BASE TARGET`: for each location (uid
 * [subtype]) the median of each profile's values and the relative change,
 * largest changes first (either way: halving is as big as doubling), for
 * front ends that show it as data (the project's pages of veles serve).
 * It is the CLI's join (analyze/diff_join.h) with those settings.
 */
#ifndef VIEW_DIFF_TABLE_H
#define VIEW_DIFF_TABLE_H

#include <stddef.h>

#include "analyze/diff_join.h"

/* rows[i].base, .target: medians, NaN where the profile lacks the
 * location; .rel: target / base - 1, NaN when either is missing or base
 * is 0. */
struct diff_table {
	struct diff_row *rows;
	size_t n;
};

/* ERR_INVALID when neither profile has a numeric @of (NULL: "amount"). */
int diff_table_build(const struct profile *base, const struct profile *target, const char *of,
		     struct diff_table *out);
void diff_table_free(struct diff_table *t);

#endif
