/* Two profiles' grouped values joined into rows (diff_join.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/diff_join.h"
#include "analyze/samples.h"
#include "analyze/stats.h"
#include "util/common.h"
#include "util/error.h"

double diff_aggregate(const double *v, size_t n, enum diff_agg agg)
{
	double x;

	switch (agg) {
	case DIFF_SUM:
		x = 0;
		for (size_t i = 0; i < n; i++)
			x += v[i];
		return x;
	case DIFF_MEAN:
		return stats_mean(v, n);
	case DIFF_MIN:
	case DIFF_MAX:
		x = v[0];
		for (size_t i = 1; i < n; i++)
			x = agg == DIFF_MIN ? fmin(x, v[i]) : fmax(x, v[i]);
		return x;
	case DIFF_COUNT:
		return (double)n;
	default:
		return stats_median(v, n);
	}
}

/* Missing keys (NaN) last, then smaller keys first; ties by name. */
static int by_key(double ka, double kb, const struct diff_row *a, const struct diff_row *b)
{
	if (isnan(ka) != isnan(kb))
		return isnan(ka) ? 1 : -1;
	if (ka != kb && !isnan(ka))
		return ka < kb ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* One comparator per order: qsort has no context to pass the order in. */
static int cmp_name(const void *x, const void *y)
{
	return strcmp(((const struct diff_row *)x)->name, ((const struct diff_row *)y)->name);
}

static int cmp_baseline(const void *x, const void *y)
{
	const struct diff_row *a = x, *b = y;

	return by_key(-a->base, -b->base, a, b);
}

static int cmp_target(const void *x, const void *y)
{
	const struct diff_row *a = x, *b = y;

	return by_key(-a->target, -b->target, a, b);
}

static int cmp_increase(const void *x, const void *y)
{
	const struct diff_row *a = x, *b = y;

	return by_key(-a->rel, -b->rel, a, b);
}

static int cmp_decrease(const void *x, const void *y)
{
	const struct diff_row *a = x, *b = y;

	return by_key(a->rel, b->rel, a, b);
}

/* Symmetric on the ratio: halving is as big a change as doubling. */
static int cmp_change(const void *x, const void *y)
{
	const struct diff_row *a = x, *b = y;

	return by_key(-fabs(log1p(a->rel)), -fabs(log1p(b->rel)), a, b);
}

static int (*const cmps[])(const void *, const void *) = {
	[DIFF_BY_CHANGE] = cmp_change,	   [DIFF_BY_INCREASE] = cmp_increase,
	[DIFF_BY_DECREASE] = cmp_decrease, [DIFF_BY_BASELINE] = cmp_baseline,
	[DIFF_BY_TARGET] = cmp_target,	   [DIFF_BY_NAME] = cmp_name,
};

void diff_join_sets(const struct sample_set *a, const struct sample_set *b,
		    const struct diff_join_opts *o, struct diff_rows *out)
{
	const struct sample_group *ga, *gb;
	const char *name;
	size_t i = 0, j = 0;

	out->v = xcalloc(a->n + b->n + 1, sizeof(*out->v));
	out->n = 0;
	while ((name = samples_next_pair(a, b, &i, &j, &ga, &gb))) {
		struct diff_row r = {NULL, NAN, NAN, NAN};

		if (o->filter && regexec(o->filter, name, 0, NULL, 0) != 0)
			continue;
		if (ga)
			r.base = diff_aggregate(ga->v, ga->n, o->agg);
		if (gb)
			r.target = diff_aggregate(gb->v, gb->n, o->agg);
		if (r.base != 0 && !isnan(r.base) && !isnan(r.target))
			r.rel = r.target / r.base - 1;
		r.name = xstrdup(name);
		out->v[out->n++] = r;
	}
	qsort(out->v, out->n, sizeof(*out->v), cmps[o->sort]);
	while (o->top && out->n > o->top)
		free(out->v[--out->n].name);
}

int diff_join(const struct profile *base, const struct profile *target,
	      const struct diff_join_opts *o, struct diff_rows *out)
{
	struct sample_set s[2];
	int ret = 0;

	memset(out, 0, sizeof(*out));
	samples_build_by(base, o->of, o->group_by, &s[0]);
	samples_build_by(target, o->of, o->group_by, &s[1]);
	if (o->of && s[0].n == 0 && s[1].n == 0)
		ret = err_set(ERR_INVALID, "no resource of either profile has a numeric '%s'",
			      o->of);
	else
		diff_join_sets(&s[0], &s[1], o, out);
	samples_free(&s[0]);
	samples_free(&s[1]);
	return ret;
}

void diff_rows_free(struct diff_rows *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].name);
	free(r->v);
	memset(r, 0, sizeof(*r));
}
