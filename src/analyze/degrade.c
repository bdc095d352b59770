/* The degradation methods over two profiles' samples, and their classes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/degrade.h"
#include "analyze/degrade_priv.h"
#include "analyze/hypo.h"
#include "analyze/samples.h"
#include "analyze/stats.h"
#include "profile/profile.h"
#include "util/common.h"
#include "util/error.h"

static const char *const class_names[] = {
	[CH_TOTAL_DEGRADATION] = "TotalDegradation",
	[CH_SEVERE_DEGRADATION] = "SevereDegradation",
	[CH_DEGRADATION] = "Degradation",
	[CH_MAYBE_DEGRADATION] = "MaybeDegradation",
	[CH_NO_CHANGE] = "NoChange",
	[CH_MAYBE_OPTIMIZATION] = "MaybeOptimization",
	[CH_OPTIMIZATION] = "Optimization",
	[CH_SEVERE_OPTIMIZATION] = "SevereOptimization",
	[CH_TOTAL_OPTIMIZATION] = "TotalOptimization",
	[CH_NOT_IN_BASELINE] = "NotInBaseline",
	[CH_NOT_IN_TARGET] = "NotInTarget",
	[CH_UNKNOWN] = "Unknown",
};

const char *change_class_name(enum change_class c)
{
	return c <= CH_UNKNOWN ? class_names[c] : "Unknown";
}

bool change_is_degradation(enum change_class c)
{
	return c <= CH_MAYBE_DEGRADATION;
}

bool change_is_optimization(enum change_class c)
{
	return c >= CH_MAYBE_OPTIMIZATION && c <= CH_TOTAL_OPTIMIZATION;
}

void check_params_default(struct check_params *cp)
{
	*cp = (struct check_params){
		.test = TEST_MANN_WHITNEY,
		.alpha = 0.05,
		.min_effect = 0.02,
		.severe = 0.25,
		.total = 2.0,
		.bootstrap_rounds = 2000,
		.seed = 0x5eed,
		.aat_degradation = 2.0,
		.aat_optimization = 0.5,
	};
}

void change_list_free(struct change_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].location);
		free(l->v[i].detail);
		free(l->v[i].sizes);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

struct change *degrade_change_add(struct change_list *l, const char *location, const char *method)
{
	struct change *c;

	XGROW(l->v, l->n + 1, l->cap);
	c = &l->v[l->n++];
	*c = (struct change){
		.location = xstrdup(location),
		.method = method,
		.cls = CH_UNKNOWN,
		.rel_change = NAN,
		.ci_low = NAN,
		.ci_high = NAN,
		.confidence = NAN,
		.confidence_kind = "",
		.baseline = NAN,
		.target = NAN,
	};
	return c;
}

/*
 * Slowdowns and speed-ups are judged symmetrically on the ratio: a ratio
 * of 1/r is as large a speed-up as r is a slowdown. A change must be
 * significant (p < alpha) and at least min_effect to count; it is certain
 * when its whole interval lies beyond min_effect, and only "maybe" when
 * the interval reaches back into noise.
 */
enum change_class degrade_classify_stat(double ratio, double lo, double hi, double p,
					const struct check_params *cp)
{
	bool slower = ratio > 1;
	double size = slower ? ratio : 1 / ratio;
	double sure = slower ? lo : 1 / hi; /* the interval's end nearest to 1 */
	double edge = 1 + cp->min_effect;

	if (!(ratio > 0) || isnan(p))
		return CH_UNKNOWN;
	if (p >= cp->alpha || size < edge)
		return CH_NO_CHANGE;
	if (isnan(sure) || sure < edge)
		return slower ? CH_MAYBE_DEGRADATION : CH_MAYBE_OPTIMIZATION;
	if (sure >= cp->total)
		return slower ? CH_TOTAL_DEGRADATION : CH_TOTAL_OPTIMIZATION;
	if (size >= 1 + cp->severe)
		return slower ? CH_SEVERE_DEGRADATION : CH_SEVERE_OPTIMIZATION;
	return slower ? CH_DEGRADATION : CH_OPTIMIZATION;
}

/* A bootstrap costs rounds x (n_a + n_b) draws: fewer rounds for big samples. */
static unsigned bootstrap_rounds(const struct check_params *cp, size_t n)
{
	size_t budget = 20000000 / (n ? n : 1);

	if (budget < 200)
		budget = 200;
	return budget < cp->bootstrap_rounds ? (unsigned)budget : cp->bootstrap_rounds;
}

static void compare_stat(const struct sample_group *a, const struct sample_group *b,
			 const struct check_params *cp, struct change *c)
{
	double p, ignored1, ignored2, lo, hi, ratio;

	c->baseline = stats_median(a->v, a->n);
	c->target = stats_median(b->v, b->n);
	c->confidence_kind = "p-value";
	if (c->baseline == 0 && c->target == 0) {
		c->rel_change = 0;
		c->cls = CH_NO_CHANGE; /* nothing measurable on either side */
		return;
	}
	if (a->n < 2 || b->n < 2 || c->baseline <= 0 || c->target < 0)
		return; /* too few repetitions, or no ratio to speak of: Unknown */
	p = cp->test == TEST_WELCH ? hypo_welch(a->v, a->n, b->v, b->n, &ignored1, &ignored2)
				   : hypo_mann_whitney(a->v, a->n, b->v, b->n, &ignored1);
	hypo_bootstrap_median_ratio(a->v, a->n, b->v, b->n, bootstrap_rounds(cp, a->n + b->n),
				    cp->alpha, cp->seed, &lo, &hi);
	ratio = c->target / c->baseline;
	c->rel_change = ratio - 1;
	c->ci_low = lo - 1;
	c->ci_high = hi - 1;
	c->confidence = p;
	c->cls = degrade_classify_stat(ratio, lo, hi, p, cp);
}

/* Perun's average amount threshold: the ratio of the means, against fixed
 * thresholds, with no notion of noise. */
static void compare_aat(const struct sample_group *a, const struct sample_group *b,
			const struct check_params *cp, struct change *c)
{
	double ratio;

	c->baseline = stats_mean(a->v, a->n);
	c->target = stats_mean(b->v, b->n);
	c->confidence_kind = "ratio";
	if (c->baseline == 0) {
		c->cls = c->target == 0 ? CH_NO_CHANGE : CH_UNKNOWN;
		return;
	}
	ratio = c->target / c->baseline;
	c->rel_change = ratio - 1;
	c->confidence = ratio;
	if (ratio >= cp->aat_degradation)
		c->cls = CH_DEGRADATION;
	else if (ratio <= cp->aat_optimization)
		c->cls = CH_OPTIMIZATION;
	else
		c->cls = CH_NO_CHANGE;
}

typedef void (*compare_fn)(const struct sample_group *, const struct sample_group *,
			   const struct check_params *, struct change *);

static const struct {
	const char *name;
	compare_fn fn, by_size; /* pooled, and size by size (degrade_sizes.c) */
} methods[] = {
	{"stat", compare_stat, degrade_sizes_stat},
	{"aat", compare_aat, degrade_sizes_aat},
};

/* The size a workload generator varies. */
#define SIZE_KEY "structure-unit-size"

/* Groups @p's amounts by location, with each value's size when @p has
 * sizes at all. */
static void build_samples(const struct profile *p, bool sized, struct sample_set *out)
{
	if (sized)
		samples_build_sized(p, NULL, SIZE_KEY, out);
	else
		samples_build(p, NULL, out);
}

static const char *const method_names[] = {"stat", "aat",  "eto",  "bmoe",   "int", "loc",
					   "fast", "lreg", "preg", "bounds", NULL};

const char *const *check_method_names(void)
{
	return method_names;
}

bool check_method_known(const char *name)
{
	for (size_t i = 0; method_names[i]; i++)
		if (strcmp(method_names[i], name) == 0)
			return true;
	return false;
}

void degrade_change_counts(struct change *c, const struct sample_group *a,
			   const struct sample_group *b)
{
	c->n_baseline = a ? a->n : 0;
	c->n_target = b ? b->n : 0;
}

int degrade_compare(const struct profile *base, const struct profile *target, const char *method,
		    const struct check_params *cp, struct change_list *out)
{
	struct sample_set sa, sb;
	const struct sample_group *a, *b;
	const char *location;
	compare_fn fn = NULL, by_size = NULL;
	const char *name = NULL;
	size_t i = 0, j = 0;
	bool sized;

	if (degrade_is_model_method(method))
		return degrade_models_compare(base, target, method, cp, out);
	if (strcmp(method, "eto") == 0)
		return degrade_eto(base, target, cp, out);
	if (strcmp(method, "bounds") == 0)
		return degrade_bounds(base, target, cp, out);
	for (size_t k = 0; k < ARRAY_SIZE(methods); k++)
		if (strcmp(methods[k].name, method) == 0)
			fn = methods[k].fn, by_size = methods[k].by_size, name = methods[k].name;
	if (!fn)
		return err_set(ERR_INVALID, "unknown check method '%s'", method);
	sized = profile_col_any(base, SIZE_KEY) && profile_col_any(target, SIZE_KEY);
	build_samples(base, sized, &sa);
	build_samples(target, sized, &sb);
	while ((location = samples_next_pair(&sa, &sb, &i, &j, &a, &b))) {
		struct change *c = degrade_change_add(out, location, name);

		degrade_change_counts(c, a, b);
		if (!a)
			c->cls = CH_NOT_IN_BASELINE;
		else if (!b)
			c->cls = CH_NOT_IN_TARGET;
		else if (degrade_by_size(a, b))
			by_size(a, b, cp, c);
		else
			fn(a, b, cp, c);
	}
	samples_free(&sa);
	samples_free(&sb);
	return 0;
}
