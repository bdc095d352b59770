/*
 * The models a profile carries (docs/models.md), read back for the checks
 * that compare fitted curves rather than raw measurements: evaluate a
 * model at x, integrate it, rank parametric models by complexity.
 */
#ifndef ANALYZE_MODELS_H
#define ANALYZE_MODELS_H

#include <stdbool.h>
#include <stddef.h>

struct profile;

enum model_kind {
	MODEL_CONSTANT,
	MODEL_LOGARITHMIC,
	MODEL_LINEAR,
	MODEL_QUADRATIC,
	MODEL_POWER,
	MODEL_EXPONENTIAL,
	MODEL_MOVING_AVERAGE, /* the non-parametric ones: a curve of points */
	MODEL_REGRESSOGRAM,
	MODEL_KERNEL,
};

struct model {
	char *uid;  /* with " [subtype]" when the model names a subtype */
	char *name; /* "linear", ... as written */
	enum model_kind kind;
	double r_square; /* NaN when not given */
	double b[3];	 /* coefficients b0..b2, missing ones 0 */
	double x_start, x_end;
	double *xs, *ys; /* non-parametric: x_values and bucket_stats */
	size_t npts;
};

struct model_set {
	struct model *v; /* sorted by uid, then x_start, then r_square descending */
	size_t n;
};

/* Reads p->models; unknown kinds are skipped. ERR_PARSE on malformed JSON. */
int models_load(const struct profile *p, struct model_set *out);
void models_free(struct model_set *s);

bool model_is_parametric(const struct model *m);
/* y at @x; non-parametric models interpolate linearly between points
 * (a regressogram is a step function) and hold their ends. */
double model_eval(const struct model *m, double x);
/* The integral over [a, b] by composite Simpson's rule on 256 panels. */
double model_integral(const struct model *m, double a, double b);

/*
 * The best model (highest r_square) of @uid covering @x, over the models
 * from index @first (the first of the uid) on; NULL when none covers it.
 * A uid split into intervals has one best model per interval.
 */
const struct model *models_best_at(const struct model_set *s, size_t first, double x);
/* Index of the first model of @uid, or s->n. */
size_t models_find_uid(const struct model_set *s, const char *uid);

#endif
