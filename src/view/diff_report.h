/*
 * The report of two profiles (Perun's `showdiff report`): one
 * self-contained HTML page with each profile's header side by side, the
 * change of every location, each profile's locations by their share of
 * the total, and the differential flame graph where there are call stacks.
 */
#ifndef VIEW_DIFF_REPORT_H
#define VIEW_DIFF_REPORT_H

struct buf;
struct profile;

enum report_agg { REPORT_SUM, REPORT_MEAN, REPORT_MEDIAN, REPORT_MIN, REPORT_MAX, REPORT_COUNT };

struct report_opts {
	const char *names[2]; /* how the baseline and target are called */
	const char *of;	      /* the value compared; NULL: "amount" */
	enum report_agg agg;  /* of each location's values in the change table */
};

/*
 * Appends the page to @out. ERR_INVALID when neither profile has a
 * numeric @of. The flame graph is left out (the page says so) when no
 * resource has a call stack.
 */
int diff_report_html(const struct profile *base, const struct profile *target,
		     const struct report_opts *o, struct buf *out);

#endif
