/*
 * check --method bounds, the default for bounds profiles: each loop and
 * function of the target against its pair in the baseline (bound_pairs).
 * A class that rises (O(n) to O(n^2), or to O(∞)) is a TotalDegradation;
 * one that falls a TotalOptimization. In the same class the two bounds
 * are compared at a large input (every symbol 1000): their ratio is
 * judged with --min-effect and --severe, as stat judges a slowdown.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/bound_expr.h"
#include "analyze/bound_items.h"
#include "analyze/degrade.h"
#include "analyze/degrade_priv.h"
#include "util/common.h"

static enum change_class by_ratio(double r, const struct check_params *cp)
{
	bool slower = r > 1;
	double size = slower ? r : 1 / r;

	if (size < 1 + cp->min_effect)
		return CH_NO_CHANGE;
	if (size >= 1 + cp->severe)
		return slower ? CH_SEVERE_DEGRADATION : CH_SEVERE_OPTIMIZATION;
	return slower ? CH_DEGRADATION : CH_OPTIMIZATION;
}

static void judge(const struct bound_item *a, const struct bound_item *b,
		  const struct check_params *cp, struct change *c)
{
	struct bclass ca, cb;
	int cmp;

	c->confidence_kind = "class";
	c->n_baseline = c->n_target = 1;
	c->baseline = bexpr_at_probe(a->bound);
	c->target = bexpr_at_probe(b->bound);
	if (!a->cls || !b->cls || !bclass_parse(a->cls, &ca) || !bclass_parse(b->cls, &cb)) {
		c->note = "a class that is not O(...)";
		return;
	}
	c->detail = xasprintf("%s -> %s", a->cls, b->cls);
	cmp = bclass_cmp(cb, ca);
	if (cmp) {
		c->cls = cmp > 0 ? CH_TOTAL_DEGRADATION : CH_TOTAL_OPTIMIZATION;
		if (!isnan(c->baseline) && !isnan(c->target) && c->baseline > 0)
			c->rel_change = c->target / c->baseline - 1;
		return;
	}
	if (ca.inf || strcmp(a->bound, b->bound) == 0) {
		c->cls = CH_NO_CHANGE;
		c->rel_change = 0;
		return;
	}
	if (isnan(c->baseline) || isnan(c->target)) {
		c->note = "a bound that does not parse";
		return;
	}
	if (c->baseline <= 0) {
		c->cls = c->target <= 0 ? CH_NO_CHANGE : CH_TOTAL_DEGRADATION;
		return;
	}
	c->rel_change = c->target / c->baseline - 1;
	c->cls = by_ratio(c->target / c->baseline, cp);
}

int degrade_bounds(const struct profile *base, const struct profile *target,
		   const struct check_params *cp, struct change_list *out)
{
	struct bound_item *a, *b;
	struct bound_pair *pairs;
	size_t na, nb, n;

	bound_items(base, &a, &na);
	bound_items(target, &b, &nb);
	n = bound_pairs(a, na, b, nb, &pairs);
	for (size_t i = 0; i < n; i++) {
		const struct bound_item *x = pairs[i].base, *y = pairs[i].target;
		struct change *c = degrade_change_add(out, (y ? y : x)->location, "bounds");

		if (!x)
			c->cls = CH_NOT_IN_BASELINE;
		else if (!y)
			c->cls = CH_NOT_IN_TARGET;
		else
			judge(x, y, cp, c);
	}
	free(pairs);
	bound_items_free(a, na);
	bound_items_free(b, nb);
	return 0;
}
