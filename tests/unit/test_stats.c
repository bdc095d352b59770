/* analyze/stats on values worked out by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/stats.h"
#include "util/common.h"

#define EPS 1e-9

/* cmocka's assert_float_equal compares in float precision; we want double. */
#define assert_near(a, b, eps) near_check((a), (b), (eps), __FILE__, __LINE__)

static void near_check(double a, double b, double eps, const char *file, int line)
{
	if (!(fabs(a - b) <= eps))
		fail_msg("%s:%d: %.17g != %.17g", file, line, a, b);
}

static void test_basic(void **state)
{
	/* Sorted: 2 4 4 4 5 5 7 9. Sum 40, squares about 5: 9+1+1+1+0+0+4+16 = 32. */
	const double x[] = {4, 9, 2, 5, 4, 7, 4, 5};
	struct stats s;

	stats_compute(x, ARRAY_SIZE(x), &s);
	assert_int_equal(s.n, 8);
	assert_near(s.mean, 5.0, EPS);
	assert_near(s.stddev, sqrt(32.0 / 7.0), EPS);
	assert_near(s.min, 2, EPS);
	assert_near(s.max, 9, EPS);
	assert_near(s.median, 4.5, EPS);
	/* Type 7: q1 at rank 1.75 -> 4 + 0.75 * 0; q3 at rank 5.25 -> 5 + 0.25 * 2. */
	assert_near(s.q1, 4.0, EPS);
	assert_near(s.q3, 5.5, EPS);
	/* |x - 4.5| sorted: 0.5 x5, 2.5, 2.5, 4.5 -> 0.5. */
	assert_near(s.mad, 0.5, EPS);
	/* 0.6745 * 4.5 / 0.5 = 6.07 > 3.5 for 9; 0.6745 * 2.5 / 0.5 = 3.37 for 2 and 7. */
	assert_int_equal(s.noutliers, 1);
	/* The input is left as it was. */
	assert_near(x[0], 4, EPS);
	assert_near(x[1], 9, EPS);
}

static void test_outliers_marked(void **state)
{
	const double x[] = {10.0, 10.1, 9.9, 10.2, 10.0, 30.0};
	bool out[ARRAY_SIZE(x)];

	/* Median 10.05, MAD 0.1: 30 scores 0.6745 * 19.95 / 0.1 = 134.6. */
	assert_int_equal(stats_outliers(x, ARRAY_SIZE(x), out), 1);
	for (size_t i = 0; i < ARRAY_SIZE(x); i++)
		assert_int_equal(out[i], i == 5);
	assert_near(stats_mad(x, ARRAY_SIZE(x)), 0.1, 1e-12);
}

static void test_mad_zero(void **state)
{
	/* MAD 0: mean |x - 1| = 0.8; 0.7979 * 4 / 0.8 = 3.99 > 3.5. */
	const double x[] = {1, 1, 1, 1, 5};
	const double same[] = {3, 3, 3};
	const double near[] = {1, 1, 1, 1, 2};

	assert_int_equal(stats_outliers(x, ARRAY_SIZE(x), NULL), 1);
	assert_int_equal(stats_outliers(same, ARRAY_SIZE(same), NULL), 0);
	/* 0.7979 * 1 / 0.2 = 3.99: one deviating value among equals is flagged. */
	assert_int_equal(stats_outliers(near, ARRAY_SIZE(near), NULL), 1);
}

static void test_small(void **state)
{
	const double one[] = {2.5};
	const double two[] = {1, 3};
	struct stats s;

	stats_compute(one, 1, &s);
	assert_near(s.mean, 2.5, EPS);
	assert_near(s.stddev, 0, EPS);
	assert_near(s.median, 2.5, EPS);
	assert_near(s.q1, 2.5, EPS);
	assert_int_equal(s.noutliers, 0);
	stats_compute(two, 2, &s);
	assert_near(s.median, 2, EPS);
	assert_near(s.stddev, sqrt(2.0), EPS);
	assert_near(s.mad, 1, EPS);
	assert_int_equal(s.noutliers, 0);
	stats_compute(NULL, 0, &s);
	assert_int_equal(s.n, 0);
	assert_near(s.mean, 0, EPS);
}

static void test_quantiles(void **state)
{
	double x[] = {5, 1, 4, 2, 3};

	assert_near(stats_median_sort(x, 5), 3, EPS);
	assert_near(x[0], 1, EPS); /* sorted in place */
	assert_near(stats_quantile_sorted(x, 5, 0), 1, EPS);
	assert_near(stats_quantile_sorted(x, 5, 1), 5, EPS);
	assert_near(stats_quantile_sorted(x, 5, 0.1), 1.4, EPS);
	assert_near(stats_mean(x, 5), 3, EPS);
	assert_near(stats_stddev(x, 5), sqrt(2.5), EPS);
}

/* The three medians agree; the copying one leaves its input alone; the
 * even case is the exact midpoint, not an interpolation that rounds. */
static void test_median_forms(void **state)
{
	const double x[] = {0.1, 0.7, 0.2, 0.3};
	double sorted[] = {0.1, 0.2, 0.3, 0.7}, y[4];

	UNUSED(state);
	memcpy(y, x, sizeof(x));
	assert_true(stats_median(x, 4) == (0.2 + 0.3) / 2);
	assert_true(x[1] == 0.7); /* not sorted */
	assert_true(stats_median_sort(y, 4) == (0.2 + 0.3) / 2);
	assert_true(y[3] == 0.7); /* sorted in place */
	assert_true(stats_median_sorted(sorted, 4) == (0.2 + 0.3) / 2);
	assert_true(stats_median_sorted(sorted, 3) == 0.2);
	assert_true(stats_median_sorted(sorted, 1) == 0.1);
	assert_true(stats_median(x, 0) == 0);
}

/* Bootstrap ratios can be infinite: a quantile beside one is that
 * infinity, never the NaN of inf - inf or inf * 0. */
static void test_quantile_infinities(void **state)
{
	const double x[] = {-INFINITY, 1, 2, INFINITY, INFINITY};

	UNUSED(state);
	assert_true(stats_quantile_sorted(x, 5, 0) == -INFINITY);
	assert_true(stats_quantile_sorted(x, 5, 0.1) == -INFINITY);
	assert_near(stats_quantile_sorted(x, 5, 0.375), 1.5, EPS);
	assert_true(stats_quantile_sorted(x, 5, 0.6) == INFINITY);
	assert_true(stats_quantile_sorted(x, 5, 0.9) == INFINITY);
	assert_true(stats_quantile_sorted(x + 3, 2, 0.5) == INFINITY);
	assert_true(stats_median_sorted(x + 2, 2) == INFINITY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_outliers_marked),
		cmocka_unit_test(test_mad_zero),
		cmocka_unit_test(test_small),
		cmocka_unit_test(test_quantiles),
		cmocka_unit_test(test_median_forms),
		cmocka_unit_test(test_quantile_infinities),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
