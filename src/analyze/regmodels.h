/*
 * Least-squares fits of the parametric regression models (docs/models.md)
 * to a set of points, and the coefficient of determination of each.
 *
 * Two-coefficient models are straight lines in transformed coordinates
 * (ln x, ln y) fitted from centred O(n) sums; the quadratic solves its 3x3
 * normal equations of centred, scaled x with GSL's Cholesky decomposition.
 * The unit tests check both against gsl_fit_linear and gsl_multifit_linear.
 */
#ifndef ANALYZE_REGMODELS_H
#define ANALYZE_REGMODELS_H

#include <stdbool.h>
#include <stddef.h>

enum reg_model {
	REG_CONSTANT,
	REG_LINEAR,
	REG_LOGARITHMIC,
	REG_QUADRATIC,
	REG_POWER,
	REG_EXPONENTIAL,
	REG_NMODELS,
};

#define REG_ALL_MODELS ((1u << REG_NMODELS) - 1)

struct reg_point {
	double x, y;
};

struct reg_fit {
	enum reg_model model;
	int ncoeffs;
	double coeffs[3]; /* b0, b1, b2 as in docs/models.md */
	double r_square;  /* against the points on their own scale */
	/* As Perun defines it: power and exponential in the log space they
	 * are fitted in, the constant derived from the linear fit's slope and
	 * r²; the rest as r_square. The methods pick the best model by it. */
	double r_square_perun;
	double x_start, x_end;
	size_t skipped; /* points left out: x or y <= 0 for a log-space model */
};

/* Scratch arrays reused from one fit to the next. */
struct reg_work;

struct reg_work *reg_work_new(void);
void reg_work_free(struct reg_work *w);

const char *reg_model_name(enum reg_model m);
/* The model called @name, or -1. */
int reg_model_from_name(const char *name);

/*
 * Fits every model in @mask (bit 1 << model) to @pts[0..n) and stores the
 * ones that can be fitted in @out, in model order; returns how many. The
 * models fitted in log space leave out the points their logarithm does
 * not take, as Perun does (x <= 0 for logarithmic and power, y <= 0 for
 * power and exponential) and are fitted to the rest. A model cannot be
 * fitted with too few distinct x among its points (linear-like 2,
 * quadratic 3) or a result that is not finite.
 */
size_t reg_fit_models(struct reg_work *w, unsigned mask, const struct reg_point *pts, size_t n,
		      struct reg_fit *out);

/*
 * The methods of docs/postprocess/regression-analysis.md: which models are
 * fitted on which part of the points, and which are reported.
 */
enum reg_method {
	REG_FULL,
	REG_ITERATIVE,
	REG_INTERVAL,
	REG_INITIAL_GUESS,
	REG_BISECTION,
	REG_NMETHODS,
};

/* bisection does not split a part whose halves would hold fewer points. */
#define REG_BISECT_MIN 10

const char *reg_method_name(enum reg_method m);
int reg_method_from_name(const char *name);

/* Receives each model a method reports. */
typedef void (*reg_emit_fn)(void *ctx, const struct reg_fit *fit);

/*
 * Runs @method with the models in @mask over @pts[0..n), which every method
 * but full sorts by x first, and passes each resulting model to @emit.
 * Returns how many it reported (0 when no model could be fitted).
 */
size_t reg_run_method(struct reg_work *w, enum reg_method method, unsigned mask, unsigned steps,
		      struct reg_point *pts, size_t n, reg_emit_fn emit, void *ctx);

#endif
