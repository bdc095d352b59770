/*
 * The checks that compare fitted models (what regression analysis and the
 * smoothing postprocessors leave in a profile) rather than raw values:
 * bmoe, int, loc, fast, lreg and preg. Each works per uid, over the
 * interval both sides' models cover, on the best model at each x, so a
 * uid fitted piecewise is compared piece by piece.
 *
 * Parametric and non-parametric models do not compete on r² alone: a
 * regressogram or a moving average follows the noise it was built from
 * and scores higher than any curve, so it would replace the parametric
 * model on one side and turn the same data into a large change. When
 * both sides have parametric models, only those are compared; otherwise
 * a non-parametric kind both sides have, the same on each. Perun's
 * --models-type strategies choose otherwise when asked (enum
 * model_pairing): the best of a group of kinds on each side, or each kind
 * with the same kind, one result per kind ("uid (linear)").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/degrade.h"
#include "analyze/degrade_priv.h"
#include "analyze/models.h"
#include "analyze/samples.h"
#include "util/common.h"
#include "util/error.h"

/* An odd count: Simpson's rule then covers the grid exactly. */
#define CURVE_POINTS 65
#define LOC_INTERVALS 8

/* The uid's best models, sampled on one grid over the shared interval. */
struct curves {
	double x[CURVE_POINTS], b[CURVE_POINTS], t[CURVE_POINTS];
	double lo, hi;
	double r2; /* the worse of the two best models' rank (r² they were picked by) */
	const struct model *best_b, *best_t; /* the best model overall, each side */
};

static void uid_span(const struct model_set *s, size_t first, unsigned kinds, double *lo,
		     double *hi, const struct model **best)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	*best = NULL;
	for (size_t i = first; i < s->n && strcmp(s->v[i].uid, s->v[first].uid) == 0; i++) {
		if (!(kinds & (1u << s->v[i].kind)))
			continue;
		*lo = fmin(*lo, s->v[i].x_start);
		*hi = fmax(*hi, s->v[i].x_end);
		if (!*best || s->v[i].rank > (*best)->rank)
			*best = &s->v[i];
	}
}

/*
 * Which models of each side take part (bits of enum model_kind): the
 * parametric ones when both sides have some; else one non-parametric kind
 * both have (moving average, then regressogram, then kernel); else each
 * side's parametric models, or all it has when it has none.
 */
static void pick_kinds(unsigned kb, unsigned kt, unsigned *ub, unsigned *ut)
{
	unsigned common = kb & kt & ~MODELS_PARAMETRIC;

	if ((kb & MODELS_PARAMETRIC) && (kt & MODELS_PARAMETRIC)) {
		*ub = *ut = MODELS_PARAMETRIC;
	} else if (common) {
		*ub = *ut = common & -common; /* the lowest kind */
	} else {
		*ub = kb & MODELS_PARAMETRIC ? MODELS_PARAMETRIC : kb;
		*ut = kt & MODELS_PARAMETRIC ? MODELS_PARAMETRIC : kt;
	}
}

/* false when the two sides share no finite interval to compare over (or,
 * with @ub and @ut, no model of those kinds; 0: pick_kinds chooses). */
static bool sample_curves(const struct model_set *bs, size_t bi, const struct model_set *ts,
			  size_t ti, unsigned ub, unsigned ut, struct curves *c)
{
	double blo, bhi, tlo, thi;

	if (!ub)
		pick_kinds(models_kinds(bs, bi), models_kinds(ts, ti), &ub, &ut);
	if (!(models_kinds(bs, bi) & ub) || !(models_kinds(ts, ti) & ut))
		return false;
	uid_span(bs, bi, ub, &blo, &bhi, &c->best_b);
	uid_span(ts, ti, ut, &tlo, &thi, &c->best_t);
	c->lo = fmax(blo, tlo);
	c->hi = fmin(bhi, thi);
	if (!isfinite(c->lo) || !isfinite(c->hi) || c->hi < c->lo)
		return false;
	c->r2 = fmin(c->best_b->rank, c->best_t->rank);
	for (int i = 0; i < CURVE_POINTS; i++) {
		double x = c->lo + (c->hi - c->lo) * i / (CURVE_POINTS - 1);
		const struct model *mb = models_best_at(bs, bi, x, ub),
				   *mt = models_best_at(ts, ti, x, ut);

		c->x[i] = x;
		c->b[i] = mb ? model_eval(mb, x) : NAN;
		c->t[i] = mt ? model_eval(mt, x) : NAN;
	}
	return true;
}

/* Degradation classes by the size of a relative change. */
static enum change_class by_size(double rel, bool maybe, const struct check_params *cp)
{
	bool slower = rel > 0;
	double size = slower ? 1 + rel : 1 / (1 + rel);

	if (isnan(rel) || !(1 + rel > 0))
		return isnan(rel) ? CH_UNKNOWN : CH_TOTAL_OPTIMIZATION;
	if (size < 1 + cp->min_effect)
		return CH_NO_CHANGE;
	if (maybe)
		return slower ? CH_MAYBE_DEGRADATION : CH_MAYBE_OPTIMIZATION;
	if (size >= cp->total)
		return slower ? CH_TOTAL_DEGRADATION : CH_TOTAL_OPTIMIZATION;
	if (size >= 1 + cp->severe)
		return slower ? CH_SEVERE_DEGRADATION : CH_SEVERE_OPTIMIZATION;
	return slower ? CH_DEGRADATION : CH_OPTIMIZATION;
}

/* A fit is trusted when it explains at least half the variance. */
static bool poor_fit(double r2)
{
	return isnan(r2) || r2 < 0.5;
}

/* Simpson's rule on the grid: exact for models up to cubic. */
static double simpson(const double *y, double lo, double hi)
{
	double h = (hi - lo) / (CURVE_POINTS - 1), sum = y[0] + y[CURVE_POINTS - 1];

	for (int i = 1; i < CURVE_POINTS - 1; i++)
		sum += (i % 2 ? 4 : 2) * y[i];
	return sum * h / 3;
}

/* Complexity rank: a power model sits by its exponent between the others. */
static double growth_rank(const struct model *m)
{
	switch (m->kind) {
	case MODEL_CONSTANT:
		return 0;
	case MODEL_LOGARITHMIC:
		return 1;
	case MODEL_LINEAR:
		return 2;
	case MODEL_QUADRATIC:
		return 3;
	case MODEL_POWER:
		return m->b[1] < 1 ? 1.5 : m->b[1] < 2 ? 2.5 : 3.5;
	case MODEL_EXPONENTIAL:
		return 4;
	default:
		return NAN;
	}
}

static void method_bmoe(const struct curves *c, const struct check_params *cp, struct change *ch)
{
	double rb = growth_rank(c->best_b), rt = growth_rank(c->best_t);

	UNUSED(cp);
	ch->confidence = c->r2;
	ch->confidence_kind = "r_square";
	ch->baseline = rb;
	ch->target = rt;
	ch->rel_change = simpson(c->t, c->lo, c->hi) / simpson(c->b, c->lo, c->hi) - 1;
	if (isnan(rb) || isnan(rt))
		ch->cls = CH_UNKNOWN;
	else if (rt == rb)
		ch->cls = CH_NO_CHANGE;
	else if (rt > rb)
		ch->cls = poor_fit(c->r2) ? CH_MAYBE_DEGRADATION
			  : rt - rb >= 2  ? CH_SEVERE_DEGRADATION
					  : CH_DEGRADATION;
	else
		ch->cls = poor_fit(c->r2) ? CH_MAYBE_OPTIMIZATION
			  : rb - rt >= 2  ? CH_SEVERE_OPTIMIZATION
					  : CH_OPTIMIZATION;
}

static void method_int(const struct curves *c, const struct check_params *cp, struct change *ch)
{
	ch->baseline = simpson(c->b, c->lo, c->hi);
	ch->target = simpson(c->t, c->lo, c->hi);
	ch->confidence = c->r2;
	ch->confidence_kind = "r_square";
	ch->rel_change = ch->baseline != 0 ? ch->target / ch->baseline - 1 : NAN;
	ch->cls = by_size(ch->rel_change, poor_fit(c->r2), cp);
}

/* Means of both curves on LOC_INTERVALS sub-intervals, compared one by one. */
static void method_loc(const struct curves *c, const struct check_params *cp, struct change *ch)
{
	const int per = CURVE_POINTS / LOC_INTERVALS;
	int up = 0, down = 0;
	double sum_rel = 0;

	for (int k = 0; k < LOC_INTERVALS; k++) {
		double mb = 0, mt = 0, rel;

		for (int i = k * per; i < (k + 1) * per; i++) {
			mb += c->b[i] / per;
			mt += c->t[i] / per;
		}
		rel = mb != 0 ? mt / mb - 1 : 0;
		sum_rel += rel / LOC_INTERVALS;
		up += rel >= cp->min_effect;
		down += rel <= -cp->min_effect;
	}
	ch->rel_change = sum_rel;
	ch->baseline = simpson(c->b, c->lo, c->hi) / (c->hi - c->lo);
	ch->target = simpson(c->t, c->lo, c->hi) / (c->hi - c->lo);
	ch->confidence = (double)(up > down ? up : down) / LOC_INTERVALS;
	ch->confidence_kind = "share";
	if (up == 0 && down == 0)
		ch->cls = CH_NO_CHANGE;
	else if (up && down)
		ch->cls = up > down ? CH_MAYBE_DEGRADATION : CH_MAYBE_OPTIMIZATION;
	else
		ch->cls = by_size(sum_rel, (up + down) * 2 < LOC_INTERVALS, cp);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The median relative gap between the curves: one pass, no fitting. Not
 * the mean: where the baseline curve nears 0 (a fitted line with a small
 * or negative intercept) the relative gap there is huge and of either
 * sign, and a mean follows those few points wherever they go; points
 * where the baseline is below 1% of its largest size do not count at all.
 */
static void method_fast(const struct curves *c, const struct check_params *cp, struct change *ch)
{
	double rel[CURVE_POINTS] = {0}, top = 0;
	int n = 0;

	for (int i = 0; i < CURVE_POINTS; i++)
		if (!isnan(c->b[i]))
			top = fmax(top, fabs(c->b[i]));
	for (int i = 0; i < CURVE_POINTS; i++)
		if (fabs(c->b[i]) > 0.01 * top && !isnan(c->t[i]))
			rel[n++] = (c->t[i] - c->b[i]) / fabs(c->b[i]);
	qsort(rel, (size_t)n, sizeof(*rel), cmp_double);
	ch->rel_change = n == 0 ? NAN : n % 2 ? rel[n / 2] : (rel[n / 2 - 1] + rel[n / 2]) / 2;
	ch->baseline = simpson(c->b, c->lo, c->hi) / (c->hi - c->lo);
	ch->target = simpson(c->t, c->lo, c->hi) / (c->hi - c->lo);
	ch->confidence = c->r2;
	ch->confidence_kind = "r_square";
	ch->cls = by_size(ch->rel_change, poor_fit(c->r2), cp);
}

/*
 * Least squares of the difference t(x) - b(x) by a polynomial of degree
 * @deg (at most 3) on the grid, in x scaled to [0, 1]. Returns the fit's
 * residual sum of squares; @coef gets the coefficients.
 */
static double fit_poly(const struct curves *c, int deg, double coef[4])
{
	double a[4][5] = {{0}}, rss = 0;
	int n = deg + 1;

	for (int i = 0; i < CURVE_POINTS; i++) {
		double u = (double)i / (CURVE_POINTS - 1), d = c->t[i] - c->b[i],
		       p[4] = {1, u, u * u, u * u * u};

		for (int r = 0; r < n; r++) {
			for (int k = 0; k < n; k++)
				a[r][k] += p[r] * p[k];
			a[r][n] += p[r] * d;
		}
	}
	/* Gauss-Jordan on the normal equations (n <= 4, well conditioned on [0, 1]). */
	for (int col = 0; col < n; col++) {
		int piv = col;

		for (int r = col + 1; r < n; r++)
			if (fabs(a[r][col]) > fabs(a[piv][col]))
				piv = r;
		for (int k = 0; k <= n; k++) {
			double t = a[col][k];

			a[col][k] = a[piv][k];
			a[piv][k] = t;
		}
		for (int r = 0; r < n; r++) {
			double f = a[r][col] / a[col][col];

			if (r != col)
				for (int k = col; k <= n; k++)
					a[r][k] -= f * a[col][k];
		}
	}
	for (int k = 0; k < 4; k++)
		coef[k] = k < n ? a[k][n] / a[k][k] : 0;
	for (int i = 0; i < CURVE_POINTS; i++) {
		double u = (double)i / (CURVE_POINTS - 1);
		double f = coef[0] + u * (coef[1] + u * (coef[2] + u * coef[3]));
		double e = c->t[i] - c->b[i] - f;

		rss += e * e;
	}
	return rss;
}

static double diff_r2(const struct curves *c, double rss)
{
	double mean = 0, tss = 0;

	for (int i = 0; i < CURVE_POINTS; i++)
		mean += (c->t[i] - c->b[i]) / CURVE_POINTS;
	for (int i = 0; i < CURVE_POINTS; i++)
		tss += pow(c->t[i] - c->b[i] - mean, 2);
	return tss > 0 ? 1 - rss / tss : 1;
}

/*
 * The difference fitted by a polynomial of @deg, judged over the whole
 * interval: the fitted gap's mean relative to the baseline's mean size.
 * Judged at one end alone, two curves that meet there read as unchanged
 * however far apart they are elsewhere. The confidence is how much of the
 * gap's variation the polynomial explains.
 */
static void judge_fit(const struct curves *c, int deg, const struct check_params *cp,
		      struct change *ch)
{
	double coef[4], rss = fit_poly(c, deg, coef), gap = 0, size = 0, mean_b = 0;

	for (int i = 0; i < CURVE_POINTS; i++) {
		double u = (double)i / (CURVE_POINTS - 1);

		gap += (coef[0] + u * (coef[1] + u * (coef[2] + u * coef[3]))) / CURVE_POINTS;
		size += fabs(c->b[i]) / CURVE_POINTS;
		mean_b += c->b[i] / CURVE_POINTS;
	}
	ch->baseline = mean_b;
	ch->target = mean_b + gap;
	ch->rel_change = size > 0 ? gap / size : NAN;
	ch->confidence = diff_r2(c, rss);
	ch->confidence_kind = "r_square";
	ch->cls = by_size(ch->rel_change, poor_fit(c->r2), cp);
}

static void method_lreg(const struct curves *c, const struct check_params *cp, struct change *ch)
{
	judge_fit(c, 1, cp, ch);
}

/* The degree (0 to 3) with the lowest BIC, then judged as lreg is. */
static void method_preg(const struct curves *c, const struct check_params *cp, struct change *ch)
{
	double best = INFINITY, coef[4];
	int deg = 0;

	for (int d = 0; d <= 3; d++) {
		double rss = fit_poly(c, d, coef);
		double bic = CURVE_POINTS * log(rss / CURVE_POINTS + 1e-300) +
			     (d + 1) * log((double)CURVE_POINTS);

		if (bic < best - 1e-9) {
			best = bic;
			deg = d;
		}
	}
	judge_fit(c, deg, cp, ch);
}

typedef void (*curve_fn)(const struct curves *, const struct check_params *, struct change *);

static const struct {
	const char *name;
	curve_fn fn;
} curve_methods[] = {
	{"bmoe", method_bmoe}, {"int", method_int},   {"loc", method_loc},
	{"fast", method_fast}, {"lreg", method_lreg}, {"preg", method_preg},
};

bool degrade_is_model_method(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(curve_methods); i++)
		if (strcmp(curve_methods[i].name, name) == 0)
			return true;
	return false;
}

/* One uid's comparison of the models of @kinds (0: ours); @what names
 * them in the location, NULL for none. */
static void compare_kinds(curve_fn fn, const char *name, const struct model_set *bs, size_t bi,
			  const struct model_set *ts, size_t ti, unsigned kinds, const char *what,
			  const struct check_params *cp, struct change_list *out)
{
	const char *uid = bi < bs->n ? bs->v[bi].uid : ts->v[ti].uid;
	char *loc = what ? xasprintf("%s (%s)", uid, what) : NULL;
	struct change *c = degrade_change_add(out, loc ? loc : uid, name);
	struct curves cv;

	free(loc);
	if (bi == bs->n)
		c->cls = CH_NOT_IN_BASELINE;
	else if (ti == ts->n)
		c->cls = CH_NOT_IN_TARGET;
	else if (sample_curves(bs, bi, ts, ti, kinds, kinds, &cv))
		fn(&cv, cp, c);
	else if (kinds)
		c->note = "a side has no model of the kinds --models-type pairs";
}

#define MODELS_NONPARAMETRIC (MODELS_ANY & ~MODELS_PARAMETRIC)

/* Every kind of @group that both sides have, each with the same kind. */
static void compare_each_kind(curve_fn fn, const char *name, const struct model_set *bs, size_t bi,
			      const struct model_set *ts, size_t ti, unsigned group,
			      const struct check_params *cp, struct change_list *out)
{
	unsigned both = bi < bs->n && ti < ts->n ? models_kinds(bs, bi) & models_kinds(ts, ti) : 0;

	for (int k = 0; k <= MODEL_KERNEL; k++)
		if (both & group & (1u << k))
			compare_kinds(fn, name, bs, bi, ts, ti, 1u << k,
				      model_kind_name((enum model_kind)k), cp, out);
	/* Nothing in common of that group: one result that says so. */
	if (!(both & group))
		compare_kinds(fn, name, bs, bi, ts, ti, group,
			      group == MODELS_PARAMETRIC ? "parametric" : "non-parametric", cp,
			      out);
}

static void compare_uid(curve_fn fn, const char *name, const struct model_set *bs, size_t bi,
			const struct model_set *ts, size_t ti, const struct check_params *cp,
			struct change_list *out)
{
	switch (cp->pairing) {
	case PAIR_BEST_MODEL:
		compare_kinds(fn, name, bs, bi, ts, ti, MODELS_ANY, NULL, cp, out);
		break;
	case PAIR_BEST_PARAM:
		compare_kinds(fn, name, bs, bi, ts, ti, MODELS_PARAMETRIC, NULL, cp, out);
		break;
	case PAIR_BEST_NONPARAM:
		compare_kinds(fn, name, bs, bi, ts, ti, MODELS_NONPARAMETRIC, NULL, cp, out);
		break;
	case PAIR_ALL_PARAM:
	case PAIR_ALL_NONPARAM:
	case PAIR_ALL_MODELS:
		if (cp->pairing != PAIR_ALL_NONPARAM)
			compare_each_kind(fn, name, bs, bi, ts, ti, MODELS_PARAMETRIC, cp, out);
		if (cp->pairing != PAIR_ALL_PARAM)
			compare_each_kind(fn, name, bs, bi, ts, ti, MODELS_NONPARAMETRIC, cp, out);
		break;
	case PAIR_BEST_BOTH:
		compare_kinds(fn, name, bs, bi, ts, ti, MODELS_PARAMETRIC, "parametric", cp, out);
		compare_kinds(fn, name, bs, bi, ts, ti, MODELS_NONPARAMETRIC, "non-parametric", cp,
			      out);
		break;
	default:
		compare_kinds(fn, name, bs, bi, ts, ti, 0, NULL, cp, out);
	}
}

static const char *const pairing_names[] = {
	[PAIR_AUTO] = "auto",
	[PAIR_BEST_MODEL] = "best-model",
	[PAIR_BEST_PARAM] = "best-param",
	[PAIR_BEST_NONPARAM] = "best-nonparam",
	[PAIR_ALL_PARAM] = "all-param",
	[PAIR_ALL_NONPARAM] = "all-nonparam",
	[PAIR_ALL_MODELS] = "all-models",
	[PAIR_BEST_BOTH] = "best-both",
};

int model_pairing_parse(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(pairing_names); i++)
		if (strcmp(pairing_names[i], name) == 0)
			return (int)i;
	/* Perun's docstring spells these with "non-param" too. */
	if (strcmp(name, "best-non-param") == 0)
		return PAIR_BEST_NONPARAM;
	if (strcmp(name, "all-non-param") == 0)
		return PAIR_ALL_NONPARAM;
	return -1;
}

const char *model_pairing_name(enum model_pairing p)
{
	return pairing_names[p];
}

/* Index of the first model of the next uid after the one at @i. */
static size_t next_uid(const struct model_set *s, size_t i)
{
	size_t j = i;

	while (j < s->n && strcmp(s->v[j].uid, s->v[i].uid) == 0)
		j++;
	return j;
}

/*
 * A side without any model has nothing these methods can judge: every
 * location of either profile is Unknown, saying why, so a check set to a
 * model method cannot pass on profiles nobody postprocessed.
 */
static void without_models(const struct profile *base, const struct profile *target,
			   const char *note, const char *name, struct change_list *out)
{
	struct sample_set sa, sb;
	const struct sample_group *a, *b;
	const char *location;
	size_t i = 0, j = 0;

	samples_build(base, NULL, &sa);
	samples_build(target, NULL, &sb);
	while ((location = samples_next_pair(&sa, &sb, &i, &j, &a, &b))) {
		struct change *c = degrade_change_add(out, location, name);

		degrade_change_counts(c, a, b);
		c->note = note;
	}
	/* Not even a resource: still one result, or the check says nothing. */
	if (sa.n == 0 && sb.n == 0)
		degrade_change_add(out, "(profile)", name)->note = note;
	samples_free(&sa);
	samples_free(&sb);
}

int degrade_models_compare(const struct profile *base, const struct profile *target,
			   const char *method, const struct check_params *cp,
			   struct change_list *out)
{
	struct model_set bs, ts;
	curve_fn fn = NULL;
	const char *name = NULL;
	size_t i = 0, j = 0;
	int ret;

	for (size_t k = 0; k < ARRAY_SIZE(curve_methods); k++)
		if (strcmp(curve_methods[k].name, method) == 0)
			fn = curve_methods[k].fn, name = curve_methods[k].name;
	if (!fn)
		return err_set(ERR_INVALID, "unknown check method '%s'", method);
	ret = models_load(base, &bs);
	if (ret == 0)
		ret = models_load(target, &ts);
	if (ret < 0) {
		models_free(&bs);
		return ret;
	}
	if (bs.n == 0 || ts.n == 0)
		without_models(base, target,
			       bs.n   ? "no models in the target: postprocess it first"
			       : ts.n ? "no models in the baseline: postprocess it first"
				      : "no models in either profile: postprocess them first",
			       name, out);
	while (bs.n && ts.n && (i < bs.n || j < ts.n)) {
		int cmp = i == bs.n ? 1 : j == ts.n ? -1 : strcmp(bs.v[i].uid, ts.v[j].uid);

		compare_uid(fn, name, &bs, cmp <= 0 ? i : bs.n, &ts, cmp >= 0 ? j : ts.n, cp, out);
		if (cmp <= 0)
			i = next_uid(&bs, i);
		if (cmp >= 0)
			j = next_uid(&ts, j);
	}
	models_free(&bs);
	models_free(&ts);
	return 0;
}
