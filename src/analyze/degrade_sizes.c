/*
 * Comparing like with like: a profile made by a workload generator holds
 * repeated runs at each of several sizes (structure-unit-size), and the
 * sizes differ in time far more than the runs do. Pooled into one sample,
 * the spread between sizes drowns any change, and two profiles measured
 * at different sizes compare the sizes rather than the code. So stat and
 * aat compare such locations size by size, one test per size both sides
 * measured at least twice, and combine them: the change is the geometric
 * mean of the per-size ratios, stat's p-value van Elteren's stratified
 * rank test (or Welch's t per size combined by Stouffer's method), its
 * interval a stratified bootstrap.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/degrade.h"
#include "analyze/degrade_priv.h"
#include "analyze/hypo.h"
#include "analyze/samples.h"
#include "analyze/stats.h"
#include "util/common.h"

/* Values of one side sorted by size, and where each size's run starts. */
struct by_size {
	double *x, *v; /* sorted by x, then v */
	size_t n;
};

struct xv {
	double x, v;
};

static int cmp_xv(const void *p, const void *q)
{
	const struct xv *a = p, *b = q;

	if (a->x != b->x)
		return a->x < b->x ? -1 : 1;
	return (a->v > b->v) - (a->v < b->v);
}

static void sort_by_size(const struct sample_group *g, struct by_size *s)
{
	struct xv *t = xcalloc(g->n ? g->n : 1, sizeof(*t));

	for (size_t i = 0; i < g->n; i++)
		t[i] = (struct xv){g->x[i], g->v[i]};
	qsort(t, g->n, sizeof(*t), cmp_xv);
	s->n = g->n;
	s->x = xcalloc(g->n ? g->n : 1, sizeof(*s->x));
	s->v = xcalloc(g->n ? g->n : 1, sizeof(*s->v));
	for (size_t i = 0; i < g->n; i++) {
		s->x[i] = t[i].x;
		s->v[i] = t[i].v;
	}
	free(t);
}

/* How many values from @i on have the size at @i. */
static size_t run_of(const struct by_size *s, size_t i)
{
	size_t j = i;

	while (j < s->n && s->x[j] == s->x[i])
		j++;
	return j - i;
}

/* Every size of either side, with the values each side has there. */
struct sized {
	struct by_size a, b;
	struct change_size *sizes;
	struct hypo_stratum *strata; /* the sizes both sides measured twice */
	size_t nsizes, nstrata;
};

static void split(const struct sample_group *ga, const struct sample_group *gb, struct sized *z)
{
	size_t i = 0, j = 0;

	memset(z, 0, sizeof(*z));
	sort_by_size(ga, &z->a);
	sort_by_size(gb, &z->b);
	z->sizes = xcalloc(ga->n + gb->n + 1, sizeof(*z->sizes));
	z->strata = xcalloc(ga->n + gb->n + 1, sizeof(*z->strata));
	while (i < z->a.n || j < z->b.n) {
		double xa = i < z->a.n ? z->a.x[i] : INFINITY,
		       xb = j < z->b.n ? z->b.x[j] : INFINITY;
		double x = fmin(xa, xb);
		size_t na = xa == x ? run_of(&z->a, i) : 0, nb = xb == x ? run_of(&z->b, j) : 0;
		struct change_size *cs = &z->sizes[z->nsizes++];

		*cs = (struct change_size){.size = x,
					   .n_baseline = na,
					   .n_target = nb,
					   .baseline = NAN,
					   .target = NAN,
					   .p = NAN};
		cs->used = na >= 2 && nb >= 2;
		if (cs->used)
			z->strata[z->nstrata++] =
				(struct hypo_stratum){z->a.v + i, z->b.v + j, na, nb};
		i += na;
		j += nb;
	}
}

static void sized_free(struct sized *z)
{
	free(z->a.x);
	free(z->a.v);
	free(z->b.x);
	free(z->b.v);
	free(z->strata);
	free(z->sizes); /* unless handed to the change */
}

/* Whether every value of @g has a size and two sizes or more hold two
 * values or more. */
static bool sizes_repeat(const struct sample_group *g)
{
	struct by_size s;
	size_t repeated = 0;

	for (size_t i = 0; i < g->n; i++)
		if (isnan(g->x[i]))
			return false;
	sort_by_size(g, &s);
	for (size_t i = 0; i < s.n && repeated < 2;) {
		size_t k = run_of(&s, i);

		repeated += k >= 2;
		i += k;
	}
	free(s.x);
	free(s.v);
	return repeated >= 2;
}

bool degrade_by_size(const struct sample_group *a, const struct sample_group *b)
{
	return a && b && a->x && b->x && sizes_repeat(a) && sizes_repeat(b);
}

static double geo_mean_of(const double *v, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += log(v[i]) / (double)n;
	return exp(sum);
}

/* Hands the per-size table to @c. */
static void keep_sizes(struct sized *z, struct change *c)
{
	c->sizes = z->sizes;
	c->nsizes = z->nsizes;
	z->sizes = NULL;
}

static unsigned rounds_for(const struct check_params *cp, size_t n)
{
	size_t budget = 20000000 / (n ? n : 1);

	if (budget < 200)
		budget = 200;
	return budget < cp->bootstrap_rounds ? (unsigned)budget : cp->bootstrap_rounds;
}

void degrade_sizes_stat(const struct sample_group *ga, const struct sample_group *gb,
			const struct check_params *cp, struct change *c)
{
	struct sized z;
	double *ma, *mb, lo, hi, ignored, ignored2;
	size_t k = 0, n = 0;

	split(ga, gb, &z);
	ma = xcalloc(z.nstrata + 1, sizeof(*ma));
	mb = xcalloc(z.nstrata + 1, sizeof(*mb));
	c->confidence_kind = "p-value";
	for (size_t i = 0, s = 0; i < z.nsizes; i++) {
		struct change_size *cs = &z.sizes[i];
		const struct hypo_stratum *st;

		if (!cs->used)
			continue;
		st = &z.strata[s++];
		cs->baseline = stats_median_sorted(st->a, st->na);
		cs->target = stats_median_sorted(st->b, st->nb);
		cs->p = cp->test == TEST_WELCH
				? hypo_welch(st->a, st->na, st->b, st->nb, &ignored, &ignored2)
				: hypo_mann_whitney(st->a, st->na, st->b, st->nb, &ignored);
		n += st->na + st->nb;
		/* Nothing measurable at this size on either side: no ratio. */
		if (cs->baseline == 0 && cs->target == 0)
			continue;
		z.strata[k] = *st;
		ma[k] = cs->baseline;
		mb[k++] = cs->target;
	}
	c->n_baseline = c->n_target = 0;
	for (size_t i = 0; i < z.nsizes; i++)
		if (z.sizes[i].used) {
			c->n_baseline += z.sizes[i].n_baseline;
			c->n_target += z.sizes[i].n_target;
		}
	if (k == 0) {
		c->cls = CH_NO_CHANGE;
		c->rel_change = 0;
	} else {
		bool zero = false, negative = false;

		for (size_t i = 0; i < k; i++) {
			zero |= ma[i] == 0;
			negative |= ma[i] < 0 || mb[i] < 0;
		}
		c->baseline = negative ? NAN : geo_mean_of(ma, k);
		c->target = negative ? NAN : geo_mean_of(mb, k);
		if (!negative) {
			double ratio = zero ? INFINITY : c->target / c->baseline;
			double p = cp->test == TEST_WELCH ? hypo_welch_strata(z.strata, k)
							  : hypo_van_elteren(z.strata, k);

			hypo_bootstrap_strata_ratio(z.strata, k, rounds_for(cp, n), cp->alpha,
						    cp->seed, &lo, &hi);
			c->rel_change = ratio - 1;
			c->ci_low = lo - 1;
			c->ci_high = hi - 1;
			c->confidence = p;
			c->cls = degrade_classify_stat(ratio, lo, hi, p, cp);
		}
	}
	keep_sizes(&z, c);
	free(ma);
	free(mb);
	sized_free(&z);
}

void degrade_sizes_aat(const struct sample_group *ga, const struct sample_group *gb,
		       const struct check_params *cp, struct change *c)
{
	struct sized z;
	double *ratio, *ma, *mb;
	size_t k = 0;

	split(ga, gb, &z);
	ratio = xcalloc(z.nstrata + 1, sizeof(*ratio));
	ma = xcalloc(z.nstrata + 1, sizeof(*ma));
	mb = xcalloc(z.nstrata + 1, sizeof(*mb));
	c->confidence_kind = "ratio";
	c->n_baseline = c->n_target = 0;
	for (size_t i = 0, s = 0; i < z.nsizes; i++) {
		struct change_size *cs = &z.sizes[i];
		const struct hypo_stratum *st;

		if (!cs->used)
			continue;
		st = &z.strata[s++];
		cs->baseline = stats_mean(st->a, st->na);
		cs->target = stats_mean(st->b, st->nb);
		c->n_baseline += st->na;
		c->n_target += st->nb;
		if (cs->baseline > 0 && cs->target >= 0) {
			ma[k] = cs->baseline;
			mb[k] = cs->target;
			ratio[k++] = cs->target / cs->baseline;
		}
	}
	if (k > 0) {
		double r = 1;
		bool zero = false;

		for (size_t i = 0; i < k; i++)
			zero |= ratio[i] == 0;
		r = zero ? 0 : geo_mean_of(ratio, k);
		c->baseline = geo_mean_of(ma, k);
		c->target = zero ? 0 : geo_mean_of(mb, k);
		c->rel_change = r - 1;
		c->confidence = r;
		c->cls = r >= cp->aat_degradation    ? CH_DEGRADATION
			 : r <= cp->aat_optimization ? CH_OPTIMIZATION
						     : CH_NO_CHANGE;
	}
	keep_sizes(&z, c);
	free(ratio);
	free(ma);
	free(mb);
	sized_free(&z);
}
