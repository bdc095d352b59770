/*
 * Which check method applies to which profile (degradation.strategies in
 * config.yml, Perun's way), and one compared pair of profiles: the
 * methods, the metric a time profile is judged on, the changes.
 */
#ifndef ANALYZE_STRATEGY_H
#define ANALYZE_STRATEGY_H

#include <stdbool.h>
#include <stddef.h>

#include "analyze/degrade.h"

struct profile;

/* The most methods degradation.strategies may apply to one profile. */
#define CHECK_MAX_METHODS 16
#define CHECK_RULE_FIELDS 7 /* type, cmd, workload, collector, postprocessor, args, params */

/* "type", "cmd", "workload", "collector", "postprocessor", "args", "params". */
extern const char *const check_rule_field_names[CHECK_RULE_FIELDS];

/* One rule of degradation.strategies. */
struct check_rule {
	const char *method;		/* a name from check_method_names() */
	char *field[CHECK_RULE_FIELDS]; /* NULL: any */
};

struct check_strategies {
	bool all; /* degradation.apply: all (the default) */
	struct check_rule *rules;
	size_t n;
};

void check_strategies_free(struct check_strategies *s);
/* A method named ours ("aat") or Perun's way ("average_amount_threshold"),
 * as its static name in check_method_names(); NULL when unknown. */
const char *check_method_canonical(const char *name);
/*
 * The check methods for target profile @p: every matching rule's (each
 * once), or the first one's with apply: first; stat, or int for a
 * non-time profile with models, when none matches.
 */
void check_methods_for(const struct check_strategies *s, const struct profile *p,
		       const char *methods[CHECK_MAX_METHODS], size_t *n);

/* How one pair of profiles is compared. */
struct check_opts {
	const char *method;			   /* NULL: the strategies decide */
	const struct check_strategies *strategies; /* NULL: none (the defaults) */
	const char *on; /* a time profile's metric; NULL: the most stable both have */
	struct check_params cp;
};

/*
 * Compares @base (named @base_name in messages) with @target by the
 * methods @o names, appending the changes to @out; a time profile's
 * changes are those of one metric. ERR_INVALID when o->on names a metric
 * a side lacks.
 */
int check_compare_pair(const struct check_opts *o, const struct profile *base,
		       const char *base_name, const struct profile *target, const char *target_name,
		       struct change_list *out);

#endif
