/* The smoothing cores (analyze/smooth.h) on values
 * worked out by hand; tests/cli/t-smoothing.sh checks them against numpy. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/series.h"
#include "analyze/smooth.h"
#include "util/common.h"

#define EPS 1e-12

#define assert_near(a, b) near_check((a), (b), __FILE__, __LINE__)

static void near_check(double a, double b, const char *file, int line)
{
	if (isnan(a) && isnan(b))
		return;
	if (!(fabs(a - b) <= EPS * (1 + fabs(b))))
		fail_msg("%s:%d: %.17g != %.17g", file, line, a, b);
}

static void assert_all(const double *got, const double *want, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_near(got[i], want[i]);
}

static const double one_to_ten[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

static void test_sma_boxcar(void **state)
{
	double out[10];
	/* centred width 3: ends average two points */
	const double c3[] = {1.5, 2, 3, 4, 5, 6, 7, 8, 9, 9.5};
	/* trailing width 3 */
	const double t3[] = {1, 1.5, 2, 3, 4, 5, 6, 7, 8, 9};
	/* centred width 3, three points needed: no value at the ends */
	const double m3[] = {NAN, 2, 3, 4, 5, 6, 7, 8, 9, NAN};
	/* centred even width 4 covers [i-2, i+1], as pandas */
	const double c4[] = {1.5, 2, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9};

	UNUSED(state);
	smooth_sma(one_to_ten, 10, 3, true, 1, "boxcar", out);
	assert_all(out, c3, 10);
	smooth_sma(one_to_ten, 10, 3, false, 0, "boxcar", out);
	assert_all(out, t3, 10);
	smooth_sma(one_to_ten, 10, 3, true, 3, "boxcar", out);
	assert_all(out, m3, 10);
	smooth_sma(one_to_ten, 10, 4, true, 1, "boxcar", out);
	assert_all(out, c4, 10);
	/* width 1 is the data itself */
	smooth_sma(one_to_ten, 10, 1, true, 1, "boxcar", out);
	assert_all(out, one_to_ten, 10);
}

static void test_sma_weighted(void **state)
{
	double out[10];
	/* triang(3) = 0.5 1 0.5; the ends divide by the weights they hold */
	const double tri[] = {2.0 / 1.5, 2, 3, 4, 5, 6, 7, 8, 9, 14.5 / 1.5};

	UNUSED(state);
	smooth_sma(one_to_ten, 10, 3, true, 1, "triang", out);
	assert_all(out, tri, 10);
	/* boxcar weights through the weighted path: hamming(1) is one point */
	smooth_sma(one_to_ten, 10, 1, true, 1, "hamming", out);
	assert_all(out, one_to_ten, 10);
}

static void test_windows(void **state)
{
	double w[5];
	const double ham3[] = {0.08, 1, 0.08}, bla3[] = {0, 1, 0}, bart5[] = {0, 0.5, 1, 0.5, 0};
	const double tri4[] = {0.25, 0.75, 0.75, 0.25}, bart2[] = {0, 0};

	UNUSED(state);
	window_weights("hamming", 3, 0, 3, w);
	assert_all(w, ham3, 3);
	window_weights("blackman", 3, 0, 3, w);
	assert_all(w, bla3, 3);
	window_weights("bartlett", 5, 0, 5, w);
	assert_all(w, bart5, 5);
	window_weights("triang", 4, 0, 4, w);
	assert_all(w, tri4, 4);
	window_weights("bartlett", 2, 0, 2, w);
	assert_all(w, bart2, 2);
	/* a slice of a window: triang(4) weights 1..2 */
	window_weights("triang", 4, 1, 3, w);
	assert_near(w[0], 0.75);
	assert_near(w[1], 0.75);
	assert_true(window_known("nuttall"));
	assert_false(window_known("gaussian"));
}

static void test_smm(void **state)
{
	const double y[] = {5, 1, 4, 2, 3};
	const double c3[] = {3, 4, 2, 3, 2.5}, t2[] = {5, 3, 2.5, 3, 2.5};
	double out[5];

	UNUSED(state);
	smooth_smm(y, 5, 3, true, 1, out);
	assert_all(out, c3, 5);
	smooth_smm(y, 5, 2, false, 1, out);
	assert_all(out, t2, 5);
	/* a window wider than the data is the median of all of it */
	smooth_smm(y, 5, 11, true, 1, out);
	for (int i = 0; i < 5; i++)
		assert_near(out[i], 3);
}

static void test_ema(void **state)
{
	const double y[] = {1, 2, 3};
	/* (3 + 0.5*2 + 0.25*1) / (1 + 0.5 + 0.25) */
	const double want[] = {1, 5.0 / 3, 4.25 / 1.75}, want2[] = {NAN, 5.0 / 3, 4.25 / 1.75};
	double out[3];

	UNUSED(state);
	smooth_ema(y, 3, 0.5, 0, out);
	assert_all(out, want, 3);
	smooth_ema(y, 3, 0.5, 2, out);
	assert_all(out, want2, 3);
	smooth_ema(y, 3, 1, 0, out); /* alpha 1: no memory */
	assert_all(out, y, 3);
}

static void test_regressogram_edges(void **state)
{
	const double x[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, same[] = {5, 5};
	const double sturges[] = {0, 1.8, 3.6, 5.4, 7.2, 9}, three[] = {0, 3, 6, 9};
	double *e;

	UNUSED(state);
	/* 9 / (log2(10) + 1) = 2.08: ceil(4.32) = 5 buckets */
	assert_int_equal(regressogram_edges(x, 10, "sturges", 0, &e), 5);
	assert_all(e, sturges, 6);
	free(e);
	/* 9 / sqrt(10) = 2.85: ceil(3.16) = 4 buckets */
	assert_int_equal(regressogram_edges(x, 10, "sqrt", 0, &e), 4);
	free(e);
	/* rice: 9 / (2 * 10^(1/3)) = 2.09: 5 buckets */
	assert_int_equal(regressogram_edges(x, 10, "rice", 0, &e), 5);
	free(e);
	/* fd: IQR 4.5, 2 * 4.5 / 10^(1/3) = 4.18: 3 buckets; auto takes the narrower sturges */
	assert_int_equal(regressogram_edges(x, 10, "fd", 0, &e), 3);
	free(e);
	assert_int_equal(regressogram_edges(x, 10, "auto", 0, &e), 5);
	free(e);
	assert_int_equal(regressogram_edges(x, 10, NULL, 3, &e), 3);
	assert_all(e, three, 4);
	/* [0,3) [3,6) [6,9]: the last bucket holds its right edge */
	assert_int_equal(regressogram_bucket(e, 3, 0), 0);
	assert_int_equal(regressogram_bucket(e, 3, 2.999), 0);
	assert_int_equal(regressogram_bucket(e, 3, 3), 1);
	assert_int_equal(regressogram_bucket(e, 3, 9), 2);
	free(e);
	/* one distinct value: numpy widens the range by 0.5 each way */
	assert_int_equal(regressogram_edges(same, 2, "auto", 0, &e), 1);
	assert_near(e[0], 4.5);
	assert_near(e[1], 5.5);
	free(e);
}

static void test_kernel(void **state)
{
	const double x[] = {0, 1, 2}, y[] = {0, 1, 4}, at[] = {0, 1}, x5[] = {1, 2, 3, 4, 5};
	struct kpoints k;
	double out[2];

	UNUSED(state);
	kpoints_build(x, y, 3, &k);
	/* epanechnikov, h 2: weights 1 at 0, 0.75 at 1, 0 at 2 */
	kernel_fit(&k, KERNEL_EPANECHNIKOV, 2, false, at, 2, out);
	assert_near(out[0], 0.75 / 1.75);
	assert_near(out[1], 4 / 2.5);
	/* local linear: the line through (0,0) and (1,1) at 0; symmetric at 1 */
	kernel_fit(&k, KERNEL_EPANECHNIKOV, 2, true, at, 2, out);
	assert_near(out[0], 0);
	assert_near(out[1], 1.6);
	/* h 1: the neighbours weigh nothing, each point is its own fit */
	kernel_fit(&k, KERNEL_EPANECHNIKOV, 1, false, at, 2, out);
	assert_near(out[0], 0);
	assert_near(out[1], 1);
	/* leave-one-out fits 1, 2, 1 against 0, 1, 4 */
	assert_near(kernel_cv_score(&k, KERNEL_EPANECHNIKOV, 2, false), 1 + 1 + 9);
	/* no neighbour at h 1: that bandwidth cannot be scored */
	assert_true(isinf(kernel_cv_score(&k, KERNEL_EPANECHNIKOV, 1, false)));
	kpoints_free(&k);
	/* sd 1.58, IQR / 1.349 = 1.48 is smaller */
	assert_near(kernel_rule_bandwidth(x5, 5, 1.059), 1.059 * (2 / 1.349) * pow(5, -0.2));
	assert_near(kernel_rule_bandwidth(x5, 1, 0.9), 1);
}

static void test_kpoints(void **state)
{
	const double x[] = {0, 0, 1, 2, 3}, y[] = {1, 3, 5, 5, 7};
	struct kpoints k, b;

	UNUSED(state);
	kpoints_build(x, y, 5, &k);
	assert_int_equal(k.m, 4);
	assert_near(k.cnt[0], 2);
	assert_near(k.sum[0], 4);
	assert_near(k.sq[0], 2); /* (1-2)^2 + (3-2)^2 */
	assert_near(k.sq[1], 0);
	/* bins [0, 1.5) and [1.5, 3]: x at the mean of their points */
	kpoints_bin(&k, 2, &b);
	assert_int_equal(b.m, 2);
	assert_near(b.x[0], 1.0 / 3);
	assert_near(b.cnt[0], 3);
	assert_near(b.sum[0], 9);
	assert_near(b.sq[0], 8); /* 1 3 5 about 3 */
	assert_near(b.x[1], 2.5);
	assert_near(b.sq[1], 2);
	kpoints_free(&b);
	kpoints_free(&k);
}

/* Perun's kernel-ridge: numpy.arange's grid, and the leave-one-out error
 * worked by hand for x = 0, 0, 1 and y = 1, 3, 5. */
static void test_kernel_ridge(void **state)
{
	const double x[] = {0, 0, 1}, y[] = {1, 3, 5}, far[] = {0, 1000};
	double *grid, g = 0.5, a = exp(-g), e1, e2, e3;
	struct kpoints k;

	UNUSED(state);
	assert_int_equal(kernel_ridge_grid(1e-5, 1e-4, 1e-5, &grid), 9); /* as numpy */
	assert_near(grid[8], 9e-5);
	free(grid);
	assert_int_equal(kernel_ridge_grid(0.1, 0.4, 0.1, &grid), 4); /* 0.3/0.1 > 3 */
	free(grid);
	kpoints_build(x, y, 3, &k);
	e1 = (3 + 5 * a) / (1 + a) - 1; /* without (0, 1): (0, 3) weighs 1, (1, 5) a */
	e2 = (1 + 5 * a) / (1 + a) - 3;
	e3 = (1 * a + 3 * a) / (2 * a) - 5;
	assert_near(kernel_ridge_loo_mse(&k, g), (e1 * e1 + e2 * e2 + e3 * e3) / 3);
	/* Far neighbours weigh little, but not nothing: e^-50 is no rounding
	 * error beside the point's own weight, which never enters. */
	a = exp(-50.0);
	e3 = (1 * a + 3 * a) / (2 * a) - 5;
	e1 = (3 + 5 * a) / (1 + a) - 1;
	e2 = (1 + 5 * a) / (1 + a) - 3;
	assert_near(kernel_ridge_loo_mse(&k, 50), (e1 * e1 + e2 * e2 + e3 * e3) / 3);
	{
		double gs[] = {1e6, 0.5, 1e-9};

		/* 1e6: e^-1e6 is 0, so (1, 5) is alone, no fit without it: NaN,
		 * never chosen */
		assert_true(isnan(kernel_ridge_loo_mse(&k, 1e6)));
		assert_true(kernel_ridge_gamma(&k, gs, 3) != 1e6);
	}
	kpoints_free(&k);
	kpoints_build(far, y, 2, &k);
	{
		double gs[] = {1, 2};

		/* every gamma leaves a point alone: the first is Perun's choice */
		assert_true(kernel_ridge_gamma(&k, gs, 2) == 1);
	}
	kpoints_free(&k);
}

static void test_r_square(void **state)
{
	const double y[] = {1, 2, 3}, same[] = {2, 2, 2}, gap[] = {1, NAN, 3}, off[] = {2, 2, 3};

	UNUSED(state);
	assert_near(series_r_square(y, y, 3), 1);
	assert_near(series_r_square(y, same, 3), 0); /* the mean explains nothing */
	assert_near(series_r_square(y, gap, 3), 1);  /* points without a fit do not count */
	/* 1 - (1 + 0 + 0) / 2 */
	assert_near(series_r_square(y, off, 3), 0.5);
	/* constant data: 1 when fitted exactly, 0 otherwise (sklearn's r2_score) */
	assert_near(series_r_square(same, same, 3), 1);
	assert_near(series_r_square(same, y, 3), 0);
}

int main(void)
{
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sma_boxcar),
		cmocka_unit_test(test_sma_weighted),
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_smm),
		cmocka_unit_test(test_ema),
		cmocka_unit_test(test_regressogram_edges),
		cmocka_unit_test(test_kernel),
		cmocka_unit_test(test_kpoints),
		cmocka_unit_test(test_kernel_ridge),
		cmocka_unit_test(test_r_square),
	};
	/* clang-format on */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
