/*
 * analyze/regmodels and regmethods: coefficients and r² on exact data worked
 * by hand, on noisy data against numpy, and against GSL's own least-squares
 * routines; which models are skipped; how many models each method reports.
 */
#include <gsl/gsl_fit.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/postproc.h"
#include "analyze/regmodels.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"

/* Relative agreement asked of every result. */
#define REL 1e-6

#define assert_rel(a, b) rel_check((a), (b), REL, __FILE__, __LINE__)
#define assert_abs(a, b, eps) abs_check((a), (b), (eps), __FILE__, __LINE__)

static void rel_check(double a, double b, double rel, const char *file, int line)
{
	if (!(fabs(a - b) <= rel * fmax(fabs(a), fabs(b))))
		fail_msg("%s:%d: %.17g != %.17g", file, line, a, b);
}

static void abs_check(double a, double b, double eps, const char *file, int line)
{
	if (!(fabs(a - b) <= eps))
		fail_msg("%s:%d: %.17g != %.17g", file, line, a, b);
}

/* Fits @mask to y = f(x) at x = x0, x0 + dx, ...; returns the fit of @want
 * or fails the test when it is missing. */
static struct reg_fit fit_of(const struct reg_point *pts, size_t n, enum reg_model want)
{
	struct reg_work *w = reg_work_new();
	struct reg_fit fits[REG_NMODELS];
	size_t k = reg_fit_models(w, REG_ALL_MODELS, pts, n, fits);

	reg_work_free(w);
	for (size_t i = 0; i < k; i++)
		if (fits[i].model == want)
			return fits[i];
	fail_msg("model %s was not fitted", reg_model_name(want));
	return fits[0];
}

static struct reg_point *make_points(size_t n, double x0, double dx, double (*f)(double))
{
	struct reg_point *pts = xmalloc(n * sizeof(*pts));

	for (size_t i = 0; i < n; i++) {
		pts[i].x = x0 + dx * (double)i;
		pts[i].y = f(pts[i].x);
	}
	return pts;
}

static double line_3_2x(double x)
{
	return 3 + 2 * x;
}

static double power_5_x15(double x)
{
	return 5 * pow(x, 1.5);
}

static double exp_2_3x(double x)
{
	return 2 * pow(3, x);
}

static double log_1_4lnx(double x)
{
	return 1 + 4 * log(x);
}

static double quad(double x)
{
	return 1 - 2 * x + 0.5 * x * x;
}

static void test_exact_line(void **state)
{
	struct reg_point *pts = make_points(10, 0, 1, line_3_2x);
	struct reg_fit f = fit_of(pts, 10, REG_LINEAR);

	assert_int_equal(f.ncoeffs, 2);
	assert_rel(f.coeffs[0], 3);
	assert_rel(f.coeffs[1], 2);
	assert_rel(f.r_square, 1);
	assert_rel(f.x_end, 9);
	assert_abs(f.x_start, 0, 0);
	/* The quadratic reproduces the line: b2 = 0. */
	f = fit_of(pts, 10, REG_QUADRATIC);
	assert_rel(f.coeffs[0], 3);
	assert_rel(f.coeffs[1], 2);
	assert_abs(f.coeffs[2], 0, 1e-12);
	/* The constant is the mean, 3 + 2 * 4.5 = 12, and explains nothing. */
	f = fit_of(pts, 10, REG_CONSTANT);
	assert_int_equal(f.ncoeffs, 1);
	assert_rel(f.coeffs[0], 12);
	assert_abs(f.r_square, 0, 1e-15);
	free(pts);
}

static void test_exact_curves(void **state)
{
	struct reg_point *pts = make_points(20, 1, 0.5, power_5_x15);
	struct reg_fit f = fit_of(pts, 20, REG_POWER);

	assert_rel(f.coeffs[0], 5);
	assert_rel(f.coeffs[1], 1.5);
	assert_rel(f.r_square, 1);
	free(pts);

	pts = make_points(8, 0, 1, exp_2_3x);
	f = fit_of(pts, 8, REG_EXPONENTIAL);
	assert_rel(f.coeffs[0], 2);
	assert_rel(f.coeffs[1], 3);
	assert_rel(f.r_square, 1);
	free(pts);

	pts = make_points(15, 0.5, 0.75, log_1_4lnx);
	f = fit_of(pts, 15, REG_LOGARITHMIC);
	assert_rel(f.coeffs[0], 1);
	assert_rel(f.coeffs[1], 4);
	assert_rel(f.r_square, 1);
	free(pts);

	pts = make_points(9, -3, 1, quad);
	f = fit_of(pts, 9, REG_QUADRATIC);
	assert_rel(f.coeffs[0], 1);
	assert_rel(f.coeffs[1], -2);
	assert_rel(f.coeffs[2], 0.5);
	assert_rel(f.r_square, 1);
	free(pts);
}

/* x = 1..12 and noisy y of roughly 2x. */
static const double noisy_y[12] = {2.1,	 3.9,  6.2,  7.8,  10.1, 12.3,
				   13.8, 16.2, 18.1, 19.7, 22.4, 23.9};

static struct reg_point *noisy_points(void)
{
	struct reg_point *pts = xmalloc(12 * sizeof(*pts));

	for (size_t i = 0; i < 12; i++)
		pts[i] = (struct reg_point){(double)(i + 1), noisy_y[i]};
	return pts;
}

/*
 * Reference values from numpy 1.x, computed once by
 * tests/cli/regression_ref.py's fits() on the points above
 * (numpy.linalg.lstsq on [1, x], [1, ln x], [1, x, x²], and on ln y for
 * power and exponential; r² = 1 - SSE/SST on y), printed with %.17g.
 */
static const struct {
	enum reg_model model;
	double coeffs[3], r_square;
} numpy_ref[] = {
	{REG_CONSTANT, {13.041666666666666}, 0},
	{REG_LINEAR, {0.039393939393936192, 2.000349650349651}, 0.99907609178134082},
	{REG_LOGARITHMIC, {-1.9940319112528149, 9.0271900056005663}, 0.89413757222714485},
	{REG_QUADRATIC,
	 {0.015909090909047602, 2.0104145854145949, -0.00077422577422625594},
	 0.99907748866026125},
	{REG_POWER, {2.0443520114527347, 0.99022807538999447}, 0.99903993402798397},
	{REG_EXPONENTIAL, {2.95781437666809, 1.2176420062117415}, 0.83327574861512654},
};

static void test_numpy_reference(void **state)
{
	struct reg_point *pts = noisy_points();

	for (size_t i = 0; i < ARRAY_SIZE(numpy_ref); i++) {
		struct reg_fit f = fit_of(pts, 12, numpy_ref[i].model);

		for (int c = 0; c < f.ncoeffs; c++)
			assert_rel(f.coeffs[c], numpy_ref[i].coeffs[c]);
		/* r² of the constant is exactly 0: no relative scale. */
		assert_abs(f.r_square, numpy_ref[i].r_square, REL);
	}
	free(pts);
}

static double sst_of(const double *y, size_t n)
{
	double mean = 0, sst = 0;

	for (size_t i = 0; i < n; i++)
		mean += y[i] / (double)n;
	for (size_t i = 0; i < n; i++)
		sst += (y[i] - mean) * (y[i] - mean);
	return sst;
}

/* The O(n) sums agree with GSL's own least-squares routines. */
static void test_against_gsl(void **state)
{
	enum { N = 500 };
	struct reg_point pts[N];
	double x[N], y[N], c0, c1, cov00, cov01, cov11, sumsq, chisq;
	gsl_matrix *a = gsl_matrix_alloc(N, 3), *cov = gsl_matrix_alloc(3, 3);
	gsl_vector *c = gsl_vector_alloc(3);
	gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(N, 3);
	gsl_vector_view yv = gsl_vector_view_array(y, N);
	struct reg_fit f;

	srand(7);
	for (int i = 0; i < N; i++) {
		x[i] = 1 + rand() % 10000;
		y[i] = 50 + 0.3 * x[i] + 2e-5 * x[i] * x[i] + rand() % 200;
		pts[i] = (struct reg_point){x[i], y[i]};
		gsl_matrix_set(a, i, 0, 1);
		gsl_matrix_set(a, i, 1, x[i]);
		gsl_matrix_set(a, i, 2, x[i] * x[i]);
	}
	gsl_fit_linear(x, 1, y, 1, N, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
	f = fit_of(pts, N, REG_LINEAR);
	assert_rel(f.coeffs[0], c0);
	assert_rel(f.coeffs[1], c1);
	gsl_multifit_linear(a, &yv.vector, c, cov, &chisq, ws);
	f = fit_of(pts, N, REG_QUADRATIC);
	for (int k = 0; k < 3; k++)
		assert_rel(f.coeffs[k], gsl_vector_get(c, k));
	/* r² from GSL's residual sums of squares. */
	assert_rel(fit_of(pts, N, REG_QUADRATIC).r_square, 1 - chisq / sst_of(y, N));
	assert_rel(fit_of(pts, N, REG_LINEAR).r_square, 1 - sumsq / sst_of(y, N));
	gsl_multifit_linear_free(ws);
	gsl_matrix_free(a);
	gsl_matrix_free(cov);
	gsl_vector_free(c);
}

static unsigned fitted_mask(const struct reg_point *pts, size_t n)
{
	struct reg_work *w = reg_work_new();
	struct reg_fit fits[REG_NMODELS];
	size_t k = reg_fit_models(w, REG_ALL_MODELS, pts, n, fits);
	unsigned mask = 0;

	for (size_t i = 0; i < k; i++)
		mask |= 1u << fits[i].model;
	reg_work_free(w);
	return mask;
}

#define BIT(m) (1u << (m))

static void test_unfittable_skipped(void **state)
{
	struct reg_point zero_x[] = {{0, 1}, {1, 3}, {2, 5}, {3, 7}};
	struct reg_point neg_y[] = {{1, -1}, {2, 3}, {3, 5}, {4, 7}};
	struct reg_point one_pos_y[] = {{1, -1}, {2, 0}, {3, 5}, {4, -7}};
	struct reg_point no_pos_x[] = {{-1, 1}, {0, 3}, {-2, 5}};
	struct reg_point two_x[] = {{1, 1}, {2, 3}, {1, 2}, {2, 4}};
	struct reg_point one[] = {{5, 9}};
	struct reg_point same_y[] = {{1, 4}, {2, 4}, {3, 4}};
	struct reg_fit f;

	/* ln 0 and ln of a negative y: the log-space models leave those points
	 * out, as Perun does, and are fitted to the rest. */
	assert_int_equal(fitted_mask(zero_x, 4), REG_ALL_MODELS);
	f = fit_of(zero_x, 4, REG_LOGARITHMIC);
	assert_int_equal(f.skipped, 1);
	assert_rel(f.x_start, 1);
	assert_int_equal(fitted_mask(neg_y, 4), REG_ALL_MODELS);
	assert_int_equal(fit_of(neg_y, 4, REG_EXPONENTIAL).skipped, 1);
	/* ... unless fewer than two distinct x remain. */
	assert_int_equal(fitted_mask(one_pos_y, 4),
			 REG_ALL_MODELS & ~BIT(REG_POWER) & ~BIT(REG_EXPONENTIAL));
	assert_int_equal(fitted_mask(no_pos_x, 3),
			 REG_ALL_MODELS & ~BIT(REG_POWER) & ~BIT(REG_LOGARITHMIC));
	/* Two distinct x cannot determine a parabola. */
	assert_int_equal(fitted_mask(two_x, 4), REG_ALL_MODELS & ~BIT(REG_QUADRATIC));
	/* One point: only its value. */
	assert_int_equal(fitted_mask(one, 1), BIT(REG_CONSTANT));
	/* Equal y values are explained by every model. */
	assert_int_equal(fitted_mask(same_y, 3), REG_ALL_MODELS);
	assert_rel(fit_of(same_y, 3, REG_CONSTANT).r_square, 1);
	assert_rel(fit_of(same_y, 3, REG_POWER).coeffs[0], 4);
	assert_rel(fit_of(same_y, 3, REG_LINEAR).r_square, 1);
}

static void test_names(void **state)
{
	for (int m = 0; m < REG_NMODELS; m++)
		assert_int_equal(reg_model_from_name(reg_model_name(m)), m);
	for (int m = 0; m < REG_NMETHODS; m++)
		assert_int_equal(reg_method_from_name(reg_method_name(m)), m);
	assert_int_equal(reg_model_from_name("cubic"), -1);
	assert_int_equal(reg_method_from_name("all"), -1);
}

/* What a method reported. */
struct seen {
	size_t n;
	struct reg_fit fits[256];
};

static void collect(void *ctx, const struct reg_fit *f)
{
	struct seen *s = ctx;

	assert_true(s->n < ARRAY_SIZE(s->fits));
	s->fits[s->n++] = *f;
}

static struct seen run(enum reg_method m, unsigned mask, unsigned steps, struct reg_point *pts,
		       size_t n)
{
	struct reg_work *w = reg_work_new();
	struct seen s = {0};

	size_t reported = reg_run_method(w, m, mask, steps, pts, n, collect, &s);

	assert_int_equal(reported, s.n);
	reg_work_free(w);
	return s;
}

/* y = 3 + 2x at x = 1..n, given in descending x order. */
static struct reg_point *line_points(size_t n)
{
	struct reg_point *pts = xmalloc(n * sizeof(*pts));

	for (size_t i = 0; i < n; i++)
		pts[i] = (struct reg_point){(double)(n - i), 3 + 2 * (double)(n - i)};
	return pts;
}

static void test_full_and_interval(void **state)
{
	struct reg_point *pts = line_points(100);
	struct seen s = run(REG_FULL, REG_ALL_MODELS, 3, pts, 100);

	assert_int_equal(s.n, REG_NMODELS);
	s = run(REG_FULL, BIT(REG_LINEAR) | BIT(REG_POWER), 3, pts, 100);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.fits[0].model, REG_LINEAR);
	assert_int_equal(s.fits[1].model, REG_POWER);

	/* Four intervals of width 99/4 over [1, 100], two models each. */
	s = run(REG_INTERVAL, BIT(REG_CONSTANT) | BIT(REG_LINEAR), 4, pts, 100);
	assert_int_equal(s.n, 8);
	for (size_t i = 0; i < 8; i++) {
		assert_int_equal(s.fits[i].model, i % 2 ? REG_LINEAR : REG_CONSTANT);
		assert_rel(s.fits[i].x_start, 1 + 24.75 * (double)(i / 2));
		assert_rel(s.fits[i].x_end, 1 + 24.75 * (double)(i / 2 + 1));
	}
	/* The first interval [1, 25.75) holds x = 1..25: mean y = 3 + 2 * 13. */
	assert_rel(s.fits[0].coeffs[0], 29);
	assert_rel(s.fits[1].coeffs[1], 2);
	assert_rel(s.fits[7].r_square, 1);
	free(pts);
}

static void test_one_model_methods(void **state)
{
	struct reg_point *pts = line_points(90);
	enum reg_method one[] = {REG_ITERATIVE, REG_INITIAL_GUESS, REG_BISECTION};

	for (size_t i = 0; i < ARRAY_SIZE(one); i++) {
		struct seen s = run(one[i], REG_ALL_MODELS, 3, pts, 90);

		/* A line is a line everywhere: one linear model over all of x. */
		assert_int_equal(s.n, 1);
		assert_int_equal(s.fits[0].model, REG_LINEAR);
		assert_rel(s.fits[0].coeffs[1], 2);
		assert_rel(s.fits[0].x_start, 1);
		assert_rel(s.fits[0].x_end, 90);
	}
	free(pts);
}

/* Flat up to x = 50, then a line: bisection splits where the shape
 * changes, and the parts cover the range without gaps. */
static void test_bisection_splits(void **state)
{
	struct reg_point pts[100];
	struct seen s;

	for (int i = 0; i < 100; i++)
		pts[i] = (struct reg_point){i + 1, i < 50 ? 10 : 10 + 3 * (i - 49)};
	s = run(REG_BISECTION, BIT(REG_CONSTANT) | BIT(REG_LINEAR), 3, pts, 100);
	assert_true(s.n >= 2);
	assert_rel(s.fits[0].x_start, 1);
	assert_rel(s.fits[s.n - 1].x_end, 100);
	for (size_t i = 1; i < s.n; i++)
		assert_rel(s.fits[i].x_start, s.fits[i - 1].x_end);
	/* The first half [1, 50.5) is flat: a constant of 10. */
	assert_int_equal(s.fits[0].model, REG_CONSTANT);
	assert_rel(s.fits[0].coeffs[0], 10);
	assert_rel(s.fits[0].x_end, 50.5);
}

/* iterative drops the worst model on each prefix; initial_guess picks
 * from a sample. On a parabola with a dip both end with the quadratic. */
static void test_iterative_and_guess_pick_best(void **state)
{
	struct reg_point *pts = make_points(60, -10, 0.5, quad);

	assert_int_equal(run(REG_ITERATIVE, REG_ALL_MODELS, 4, pts, 60).fits[0].model,
			 REG_QUADRATIC);
	assert_int_equal(run(REG_INITIAL_GUESS, REG_ALL_MODELS, 5, pts, 60).fits[0].model,
			 REG_QUADRATIC);
	/* Only unfittable models requested: nothing reported. */
	for (int i = 0; i < 60; i++)
		pts[i].x = -pts[i].x - 11;
	assert_int_equal(run(REG_FULL, BIT(REG_POWER), 3, pts, 60).n, 0);
	free(pts);
}

/*
 * r² as Perun has it (perun/postprocess/regression_analysis): 1 - SSE/SST
 * in the space a model is fitted in, so log space for power and
 * exponential; the constant's derived from the linear fit. Worked here
 * from GSL's line fit in log space.
 */
static void test_r_square_perun(void **state)
{
	struct reg_point cube[6], pw[40], flat[8];
	double lx[40], ly[40], c0, c1, cov00, cov01, cov11, sumsq, mean = 0, sst = 0;
	struct reg_fit f, lin;

	UNUSED(state);
	/* y = 3x³ over x = 0..5: Perun fits power b0 = 3, b1 = 3, r² = 1. */
	for (int i = 0; i < 6; i++)
		cube[i] = (struct reg_point){i, 3.0 * i * i * i};
	f = fit_of(cube, 6, REG_POWER);
	assert_rel(f.coeffs[0], 3);
	assert_rel(f.coeffs[1], 3);
	assert_rel(f.r_square_perun, 1);
	assert_rel(f.r_square, 1);
	/* A noisy power law, steep: Perun's r² is the log-space line's. */
	for (int i = 0; i < 40; i++) {
		double x = 1 + 25 * i, y = 60 * pow(x, 0.8) * (1 + 0.05 * sin(7.0 * i));

		pw[i] = (struct reg_point){x, y};
		lx[i] = log(x);
		ly[i] = log(y);
		mean += ly[i] / 40;
	}
	gsl_fit_linear(lx, 1, ly, 1, 40, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
	for (int i = 0; i < 40; i++)
		sst += (ly[i] - mean) * (ly[i] - mean);
	f = fit_of(pw, 40, REG_POWER);
	assert_rel(f.coeffs[1], c1);
	assert_rel(f.r_square_perun, 1 - sumsq / sst);
	assert_true(f.r_square != f.r_square_perun);
	/* Linear and quadratic: the same r² both ways. */
	lin = fit_of(pw, 40, REG_LINEAR);
	assert_rel(lin.r_square_perun, lin.r_square);
	/* A steep line (atan2(b1·x_end, x range) / 90 > 0.01): the constant
	 * gets r²(linear)·(1 - that). */
	f = fit_of(pw, 40, REG_CONSTANT);
	assert_rel(f.r_square_perun,
		   lin.r_square * (1 - atan2(fabs(lin.coeffs[1] * 976), 975) / 90));
	assert_abs(f.r_square, 0, 1e-12);
	/* Nearly flat, noisy: 1 - r²(linear), and the constant is the best. */
	for (int i = 0; i < 8; i++)
		flat[i] = (struct reg_point){100 * i, 5 + 0.01 * ((i * 5) % 3)};
	lin = fit_of(flat, 8, REG_LINEAR);
	assert_rel(fit_of(flat, 8, REG_CONSTANT).r_square_perun, 1 - lin.r_square);
	assert_int_equal(run(REG_BISECTION, REG_ALL_MODELS, 3, flat, 8).fits[0].model,
			 REG_CONSTANT);
}

/*
 * A profile of 100000 rows or more is fitted on two threads, the uids
 * split between them (regression.c): every uid gets its model once, with
 * its own coefficients, in the uids' order. Run under TSan by make check.
 */
static void test_two_threads(void **state)
{
	char *argv[] = {"regression-analysis", "--regression-models", "linear", NULL};
	struct buf j = BUF_INIT;
	struct profile *p = NULL;
	const char *at;

	UNUSED(state);
	buf_adds(&j, "{\"header\": {\"type\": \"time\"}, \"resources\": [");
	for (size_t i = 0; i < 120000; i++)
		buf_addf(&j,
			 "%s{\"uid\": \"f%zu\", \"type\": \"time\", \"structure-unit-size\": "
			 "%zu, \"amount\": %zu}",
			 i ? "," : "", i % 4, i / 4 % 100, 3 + (i % 4 + 1) * (i / 4 % 100));
	buf_adds(&j, "]}");
	assert_int_equal(profile_load_mem(j.data, j.len, "big.perf", &p), 0);
	assert_int_equal(postproc_run_argv(p, 3, argv), 0);
	at = p->models;
	for (int k = 0; k < 4; k++) {
		char uid[32], slope[64];
		const char *next, *b1;

		snprintf(uid, sizeof(uid), "\"uid\":\"f%d\"", k);
		snprintf(slope, sizeof(slope), "{\"name\":\"b1\",\"value\":%d.0}", k + 1);
		assert_non_null(at = strstr(at, uid));
		next = strstr(at + 1, "\"uid\"");
		assert_true(k < 3 ? next != NULL : next == NULL);
		b1 = strstr(at, slope);
		assert_true(b1 && (!next || b1 < next));
	}
	profile_free(p);
	buf_release(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_line),
		cmocka_unit_test(test_exact_curves),
		cmocka_unit_test(test_numpy_reference),
		cmocka_unit_test(test_against_gsl),
		cmocka_unit_test(test_unfittable_skipped),
		cmocka_unit_test(test_r_square_perun),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_full_and_interval),
		cmocka_unit_test(test_one_model_methods),
		cmocka_unit_test(test_bisection_splits),
		cmocka_unit_test(test_iterative_and_guess_pick_best),
		cmocka_unit_test(test_two_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
