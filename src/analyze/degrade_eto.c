/* The eto check: which locations' exclusive time moved unlike the rest. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/degrade.h"
#include "analyze/degrade_priv.h"
#include "analyze/samples.h"
#include "analyze/stats.h"
#include "profile/profile.h"
#include "util/common.h"

/*
 * Exclusive-time outliers: each location's change in total time (its
 * exclusive time when the profile has it, else its amount), judged against
 * the changes of all the other locations: a modified z-score above 3.5 is
 * severe, beyond 1.5 IQR above the third quartile a degradation, beyond two
 * standard deviations a maybe. A location that moved with the crowd is not
 * an outlier, however much it moved; nor is one that moved less than the
 * minimum effect, however alone: when nothing else moved at all (the same
 * program measured twice) a change of 1% would score a huge z.
 */
static enum change_class eto_class(double d, const struct stats *s, double z)
{
	bool up = d > s->median;
	double iqr = s->q3 - s->q1;

	if (fabs(z) > 3.5)
		return up ? CH_SEVERE_DEGRADATION : CH_SEVERE_OPTIMIZATION;
	if (up ? d > s->q3 + 1.5 * iqr : d < s->q1 - 1.5 * iqr)
		return up ? CH_DEGRADATION : CH_OPTIMIZATION;
	if (fabs(d - s->mean) > 2 * s->stddev && s->stddev > 0)
		return up ? CH_MAYBE_DEGRADATION : CH_MAYBE_OPTIMIZATION;
	return CH_NO_CHANGE;
}

/* A change smaller than --min-effect either way (a ratio of 1/r is as big
 * as r); false when there is no ratio (a baseline of 0). */
static bool below_min_effect(double rel, const struct check_params *cp)
{
	double r = 1 + rel;

	if (isnan(rel) || !(r > 0))
		return false;
	return (r >= 1 ? r : 1 / r) < 1 + cp->min_effect;
}

static double group_sum(const struct sample_group *g)
{
	double sum = 0;

	for (size_t i = 0; g && i < g->n; i++)
		sum += g->v[i];
	return sum;
}

/*
 * The modified z-score of @d among the changes: 0.6745 (d - median) / MAD.
 * When more than half the locations did not move at all, the MAD is 0;
 * the mean absolute deviation, scaled to the same sigma (1.2533), stands
 * in, or the clearest outlier of all would score 0.
 */
static double eto_z(double d, const double *delta, size_t n, const struct stats *s)
{
	double mean_ad = 0;

	if (s->mad > 0)
		return 0.6745 * (d - s->median) / s->mad;
	for (size_t i = 0; i < n; i++)
		mean_ad += fabs(delta[i] - s->median) / (double)n;
	return mean_ad > 0 ? (d - s->median) / (1.2533 * mean_ad) : 0;
}

int degrade_eto(const struct profile *base, const struct profile *target,
		const struct check_params *cp, struct change_list *out)
{
	const char *of = table_col(&base->res, "exclusive") && table_col(&target->res, "exclusive")
				 ? "exclusive"
				 : "amount";
	struct sample_set sa, sb;
	const struct sample_group *a, *b;
	const char *location;
	size_t first = out->n, n;
	double *delta;
	struct stats st;

	samples_build(base, of, &sa);
	samples_build(target, of, &sb);
	for (size_t i = 0, j = 0; (location = samples_next_pair(&sa, &sb, &i, &j, &a, &b));) {
		struct change *c = degrade_change_add(out, location, "eto");

		degrade_change_counts(c, a, b);
		c->baseline = group_sum(a);
		c->target = group_sum(b);
		c->rel_change = a && c->baseline != 0 ? c->target / c->baseline - 1 : NAN;
		c->confidence_kind = "z-score";
		c->cls = !a ? CH_NOT_IN_BASELINE : !b ? CH_NOT_IN_TARGET : CH_NO_CHANGE;
	}
	n = out->n - first;
	delta = xcalloc(n ? n : 1, sizeof(*delta));
	for (size_t k = 0; k < n; k++)
		delta[k] = out->v[first + k].target - out->v[first + k].baseline;
	stats_compute(delta, n, &st);
	for (size_t k = 0; k < n; k++) {
		struct change *c = &out->v[first + k];
		double z = eto_z(delta[k], delta, n, &st);

		c->confidence = z;
		if (c->cls == CH_NO_CHANGE)
			c->cls = n < 3 ? CH_UNKNOWN : eto_class(delta[k], &st, z);
		if ((change_is_degradation(c->cls) || change_is_optimization(c->cls)) &&
		    below_min_effect(c->rel_change, cp))
			c->cls = CH_NO_CHANGE;
	}
	free(delta);
	samples_free(&sa);
	samples_free(&sb);
	return 0;
}
