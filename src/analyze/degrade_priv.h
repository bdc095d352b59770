/* Shared by the degradation methods in src/analyze/degrade*.c. */
#ifndef ANALYZE_DEGRADE_PRIV_H
#define ANALYZE_DEGRADE_PRIV_H

#include <stdbool.h>

#include "analyze/degrade.h"

/* Appends a change at @location by @method, Unknown until judged. */
struct change *degrade_change_add(struct change_list *l, const char *location, const char *method);

struct sample_group;
/* Records how many values each side had (a side may be NULL). */
void degrade_change_counts(struct change *c, const struct sample_group *a,
			   const struct sample_group *b);

/* The model-based methods: bmoe, int, loc, fast, lreg, preg. */
bool degrade_is_model_method(const char *name);
int degrade_models_compare(const struct profile *base, const struct profile *target,
			   const char *method, const struct check_params *cp,
			   struct change_list *out);

/* Exclusive-time outliers across all locations. */
int degrade_eto(const struct profile *base, const struct profile *target,
		const struct check_params *cp, struct change_list *out);

/*
 * A workload generator's profile (degrade_sizes.c): whether @a and @b are
 * compared size by size (both have every value's size, and two sizes or
 * more measured at least twice), and stat and aat that way.
 */
bool degrade_by_size(const struct sample_group *a, const struct sample_group *b);
void degrade_sizes_stat(const struct sample_group *a, const struct sample_group *b,
			const struct check_params *cp, struct change *c);
void degrade_sizes_aat(const struct sample_group *a, const struct sample_group *b,
		       const struct check_params *cp, struct change *c);

/* Bounds profiles: the class of each loop and function (degrade_bounds.c). */
int degrade_bounds(const struct profile *base, const struct profile *target,
		   const struct check_params *cp, struct change_list *out);

#endif
