/*
 * The join behind `veles diff BASE TARGET [table]`: two profiles' values
 * grouped by location (or another attribute), each group aggregated, the
 * two sides joined by name into rows with the relative change, sorted and
 * cut to the top rows.
 */
#ifndef ANALYZE_DIFF_JOIN_H
#define ANALYZE_DIFF_JOIN_H

#include <regex.h>
#include <stddef.h>

struct profile;
struct sample_set;

/* In the order of view/diff_report.h's enum report_agg. */
enum diff_agg { DIFF_SUM, DIFF_MEAN, DIFF_MEDIAN, DIFF_MIN, DIFF_MAX, DIFF_COUNT };
enum diff_sort {
	DIFF_BY_CHANGE,	  /* the largest relative change either way first */
	DIFF_BY_INCREASE, /* the largest increase first */
	DIFF_BY_DECREASE,
	DIFF_BY_BASELINE, /* the largest baseline value first */
	DIFF_BY_TARGET,
	DIFF_BY_NAME,
};

struct diff_join_opts {
	enum diff_agg agg;
	enum diff_sort sort;
	size_t top;	       /* at most this many rows; 0: all */
	const regex_t *filter; /* only the groups whose name matches, or NULL */
	const char *of;	       /* the value compared; NULL: "amount" */
	const char *group_by;  /* group by this attribute; NULL: the location */
};

struct diff_row {
	char *name;
	double base, target; /* NaN where the group is missing on that side */
	double rel;	     /* target / base - 1; NaN when not defined */
};

struct diff_rows {
	struct diff_row *v;
	size_t n;
};

/* One group's values aggregated by @agg (@n > 0). */
double diff_aggregate(const double *v, size_t n, enum diff_agg agg);
/* Joins two built sample sets (sorted by location) into rows, sorted by
 * o->sort (missing values last, ties by name) and cut to o->top. */
void diff_join_sets(const struct sample_set *a, const struct sample_set *b,
		    const struct diff_join_opts *o, struct diff_rows *out);
/* The same from two profiles; ERR_INVALID when o->of names no numeric
 * value of either side (a misspelt --of would otherwise pass empty). */
int diff_join(const struct profile *base, const struct profile *target,
	      const struct diff_join_opts *o, struct diff_rows *out);
void diff_rows_free(struct diff_rows *r);

#endif
