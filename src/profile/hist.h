/*
 * Histograms carried in a profile: a resource's "histogram" field,
 * "[[LO, HI, N], ...]", N measurements from LO up to HI (the trace
 * collector's --aggregate mode, docs/collect-trace.md), and the
 * percentiles estimated from them.
 */
#ifndef PROFILE_HIST_H
#define PROFILE_HIST_H

#include <stddef.h>

struct hist_bucket {
	double lo, hi, n;
};

struct hist {
	struct hist_bucket *b;
	size_t n, cap;
};

/* Appends the buckets of @json to @h. 0, or a negative ERR_* (nothing
 * appended) for text of another shape. */
int hist_parse(const char *json, struct hist *h);
void hist_release(struct hist *h);
/* The number of measurements: the sum of the buckets' N. */
double hist_total(const struct hist *h);

/*
 * The @q-quantile (0 <= q <= 1) of the measurements @h counts, each
 * bucket's spread evenly over its range (within [@min, @max], the known
 * least and greatest values; NaN when unknown). The buckets may overlap (a
 * function's histograms from processes whose clocks ran at other rates),
 * so the value is found by bisection on the cumulative count. NaN for an
 * empty histogram.
 */
double hist_percentile(const struct hist *h, double q, double min, double max);

#endif
