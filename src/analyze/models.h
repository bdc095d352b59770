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

/* Bits of enum model_kind, for picking among a uid's models. */
#define MODELS_PARAMETRIC ((1u << MODEL_MOVING_AVERAGE) - 1)
#define MODELS_ANY ((1u << (MODEL_KERNEL + 1)) - 1)

/*
 * One model object of p->models as written (docs/models.md): strings
 * NULL and numbers NaN where the model has none.
 */
struct model_rec {
	char *uid, *kind, *method, *of_key, *per_key; /* kind: the "model" member */
	char *subtype; /* NULL: the model covers every subtype of its uid */
	double r_square, r_square_perun, x_start, x_end;
	size_t ncoeffs;
	char *coeff_names[4];
	double coeffs[4];
	double *xs, *ys; /* x_values; bucket_stats (or Perun's kernel_stats) */
	size_t nxs, nys;
	size_t n; /* the points: min(nxs, nys) with x_values, else nys */
};

enum { MODELS_SKIP_BAD = 1 };

/*
 * The one reader of p->models (analyze/model_read.c): every model into
 * *@out, *@n of them; NULL and null are none. A malformed list is an
 * error with a one-line message; so is a model without uid or model, or
 * with members of the wrong type, unless @flags has MODELS_SKIP_BAD,
 * which leaves such models out.
 */
int model_recs_read(const char *json, int flags, struct model_rec **out, size_t *n);
void model_recs_free(struct model_rec *m, size_t n);

struct model {
	char *uid;  /* with " [subtype]" when the model names a subtype */
	char *name; /* "linear", ... as written */
	enum model_kind kind;
	double r_square; /* NaN when not given */
	/* What the best model is picked by: r_square_perun where the model
	 * has it (regression-analysis writes it beside r_square), else
	 * r_square (a Perun profile's is Perun's own). */
	double rank;
	double b[3]; /* coefficients b0..b2, missing ones 0 */
	double x_start, x_end;
	double *xs, *ys; /* non-parametric: x_values and bucket_stats */
	size_t npts;
};

struct model_set {
	struct model *v; /* sorted by uid, then x_start, then rank descending */
	size_t n;
};

/*
 * Reads p->models (model_recs_read(), skipping bad models); unknown kinds
 * are skipped. Non-parametric models
 * without x_values (Perun writes none) have their points spread evenly
 * over [x_start, x_end], as Perun's checks place them: a regressogram's
 * buckets of equal width, a moving average's or kernel regression's
 * values at evenly spaced x. Points whose value is not a number (Perun's
 * moving average leaves NaN where a window had too few points) are
 * dropped. ERR_PARSE on malformed JSON.
 */
int models_load(const struct profile *p, struct model_set *out);
void models_free(struct model_set *s);

/* Whether p->models lists no model: absent, null or an empty list. */
bool models_none(const struct profile *p);
/*
 * Appends @len bytes of models (JSON objects separated by commas, as a
 * postprocessor writes them) to p->models, the one place that writes
 * that list: the models already there are kept as they are. ERR_PARSE
 * when p->models is not a JSON list.
 */
int models_append(struct profile *p, const char *items, size_t len);

bool model_is_parametric(const struct model *m);
/* "linear", "moving_average", ... */
const char *model_kind_name(enum model_kind k);
/* y at @x; non-parametric models interpolate linearly between points
 * (a regressogram is a step function) and hold their ends. */
double model_eval(const struct model *m, double x);
/* The integral over [a, b] by composite Simpson's rule on 256 panels. */
double model_integral(const struct model *m, double a, double b);

/*
 * The best model (highest rank) of @uid covering @x among the kinds in
 * @kinds (bits 1 << enum model_kind), over the models from index @first
 * (the first of the uid) on; NULL when none covers it. A uid split into
 * intervals has one best model per interval.
 */
const struct model *models_best_at(const struct model_set *s, size_t first, double x,
				   unsigned kinds);
/* The kinds (bits) among the models of the uid whose first model is @first. */
unsigned models_kinds(const struct model_set *s, size_t first);
/* Index of the first model of @uid, or s->n. */
size_t models_find_uid(const struct model_set *s, const char *uid);

#endif
