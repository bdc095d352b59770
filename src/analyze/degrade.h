/*
 * Degradation checks: compares the resources of a baseline profile with
 * those of a target profile, location by location (uid, and subtype when
 * the resources have one), and classifies each change the way Perun does,
 * with the relative change, its confidence and the amounts compared.
 */
#ifndef ANALYZE_DEGRADE_H
#define ANALYZE_DEGRADE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct profile;

enum change_class {
	CH_TOTAL_DEGRADATION,
	CH_SEVERE_DEGRADATION,
	CH_DEGRADATION,
	CH_MAYBE_DEGRADATION,
	CH_NO_CHANGE,
	CH_MAYBE_OPTIMIZATION,
	CH_OPTIMIZATION,
	CH_SEVERE_OPTIMIZATION,
	CH_TOTAL_OPTIMIZATION,
	CH_NOT_IN_BASELINE,
	CH_NOT_IN_TARGET,
	CH_UNKNOWN,
};

/* "TotalDegradation", "NoChange", ... as Perun names them. */
const char *change_class_name(enum change_class c);
/* Any of the four degradation classes. */
bool change_is_degradation(enum change_class c);
bool change_is_optimization(enum change_class c);

enum stat_test { TEST_MANN_WHITNEY, TEST_WELCH };

/*
 * Which models of the two profiles the model methods pair (Perun's
 * --models-type): ours by default (parametric when both sides have some,
 * else a non-parametric kind both have); the best of any kind, the best
 * parametric or non-parametric one, every parametric or non-parametric
 * kind with the same kind, both of those, or the best of each group.
 */
enum model_pairing {
	PAIR_AUTO,
	PAIR_BEST_MODEL,
	PAIR_BEST_PARAM,
	PAIR_BEST_NONPARAM,
	PAIR_ALL_PARAM,
	PAIR_ALL_NONPARAM,
	PAIR_ALL_MODELS,
	PAIR_BEST_BOTH,
};

/* "best-model", ... as Perun spells them; -1 when unknown. */
int model_pairing_parse(const char *name);
const char *model_pairing_name(enum model_pairing p);

struct check_params {
	/* stat */
	enum stat_test test;
	double alpha;	   /* significance level, also 1 - the interval's level */
	double min_effect; /* relative change below which a difference is noise */
	double severe;	   /* relative slowdown from which it is severe */
	double total;	   /* ratio the interval must exceed to be total (2 = doubled) */
	unsigned bootstrap_rounds;
	uint64_t seed;
	/* aat: Perun's thresholds on the ratio of averages */
	double aat_degradation;
	double aat_optimization;
	/* the model methods: which models are paired */
	enum model_pairing pairing;
};

/* alpha 0.05, min effect 2%, severe 25%, total 2x, 2000 rounds; aat 2.0 and 0.5. */
void check_params_default(struct check_params *cp);

/* One size of a location compared size by size (a workload generator's
 * profile): what was compared there. */
struct change_size {
	double size;
	size_t n_baseline, n_target;
	double baseline, target; /* medians (stat) or means (aat) at this size */
	double p;		 /* stat: this size's own p-value; NaN otherwise */
	bool used;		 /* false: too few values on a side to count */
};

struct change {
	char *location; /* uid, or "uid [subtype]" */
	const char *method;
	enum change_class cls;
	double rel_change;	/* target / baseline - 1 of the compared amounts; NaN if none */
	double ci_low, ci_high; /* interval of rel_change; NaN when the method gives none */
	double confidence;	/* p-value (stat) or ratio (aat); NaN when none */
	const char *confidence_kind; /* "p-value", "ratio" */
	double baseline, target;     /* the amounts compared: medians (stat), means (aat) */
	size_t n_baseline, n_target;
	const char *note; /* why a result is Unknown, when the method can say; or NULL */
	char *detail;	  /* what was compared, in words ("O(n^1) -> O(n^2)"); owned, or NULL */
	/* Compared size by size (structure-unit-size): one test per size,
	 * combined; every size either side had, ascending. NULL otherwise. */
	struct change_size *sizes;
	size_t nsizes;
};

struct change_list {
	struct change *v;
	size_t n, cap;
};

void change_list_free(struct change_list *l);

/* The methods this module knows, NULL-terminated ("stat", "aat"). */
const char *const *check_method_names(void);
bool check_method_known(const char *name);

/*
 * Compares @base with @target by @method and appends one change per
 * location, sorted by location. ERR_INVALID for an unknown method.
 */
int degrade_compare(const struct profile *base, const struct profile *target, const char *method,
		    const struct check_params *cp, struct change_list *out);

/*
 * The class of a change whose target/baseline ratio of medians is @ratio,
 * with interval [@lo, @hi] and p-value @p (what `stat` decides; exposed for
 * its tests).
 */
enum change_class degrade_classify_stat(double ratio, double lo, double hi, double p,
					const struct check_params *cp);

#endif
