/* analyze/changepoint on series with steps planted at known places. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analyze/changepoint.h"
#include "util/common.h"

/* Deterministic noise in [-1, 1), a hash of i. */
static double wiggle(size_t i)
{
	uint64_t z = (uint64_t)i * 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ull;
	return (double)(z >> 11) / (double)(1ull << 52) - 1.0;
}

static size_t where(const bool *c, size_t n, size_t *at, size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (c[i] && k < max)
			at[k++] = i;
	return k;
}

static void test_one_step(void **state)
{
	double y[40];
	bool c[40];
	size_t at[4];

	UNUSED(state);
	for (size_t i = 0; i < 40; i++)
		y[i] = (i < 25 ? 100 : 110) + wiggle(i);
	assert_int_equal(changepoint_pelt(y, 40, 0, 2, c, NULL), 1);
	assert_int_equal(where(c, 40, at, 4), 1);
	assert_int_equal(at[0], 25);
	/* The same step is below a minimum step of 20. */
	assert_int_equal(changepoint_pelt(y, 40, 0, 20, c, NULL), 0);
	/* And below the noise when each value is known to be +-20. */
	assert_int_equal(changepoint_pelt(y, 40, 20, 0, c, NULL), 0);
}

static void test_two_steps_and_back(void **state)
{
	double y[60];
	bool c[60];
	size_t at[4];

	UNUSED(state);
	for (size_t i = 0; i < 60; i++)
		y[i] = (i < 20 ? 50 : i < 35 ? 80 : 50) + 0.5 * wiggle(i);
	assert_int_equal(changepoint_pelt(y, 60, 0, 1, c, NULL), 2);
	where(c, 60, at, 4);
	assert_int_equal(at[0], 20);
	assert_int_equal(at[1], 35);
}

static void test_noise_only(void **state)
{
	double y[100], flat[5] = {3, 3, 3, 3, 3};
	bool c[100];

	UNUSED(state);
	for (size_t i = 0; i < 100; i++)
		y[i] = 100 + 2 * wiggle(i);
	assert_int_equal(changepoint_pelt(y, 100, 0, 0, c, NULL), 0);
	assert_int_equal(changepoint_pelt(flat, 5, 0, 0, c, NULL), 0);
	assert_int_equal(changepoint_pelt(y, 1, 0, 0, c, NULL), 0);
}

/* A step at the newest version is marked there, not one version late. */
static void test_step_at_newest(void **state)
{
	double y[12], fit[12], sigma, mean = 0, unit;
	bool c[12];
	size_t at[4];

	UNUSED(state);
	for (size_t i = 0; i < 12; i++)
		y[i] = (i < 11 ? 100 : 106) + wiggle(i + 1);
	assert_int_equal(changepoint_pelt(y, 12, 0, 2, c, fit), 1);
	assert_int_equal(where(c, 12, at, 4), 1);
	assert_int_equal(at[0], 11);
	/* The step reported is the one compared with min_step. */
	assert_true(fabs(fit[11] - y[11]) < 1e-9);
	assert_true(fabs(fit[10] - fit[0]) < 1e-9 && fabs(fit[0] - 100) < 0.5);
	assert_int_equal(changepoint_pelt(y, 12, 0, fit[11] - fit[10] + 0.01, c, NULL), 0);
	/* Alone at the tip, a value must stand out more than a segment would:
	 * splitting it off must gain more than two penalties of 2 sigma^2 ln n.
	 * (11/12) d^2 = k sigma^2 ln 12 gains k sigma^2 ln 12. */
	sigma = changepoint_noise(y, 11);
	for (size_t i = 0; i < 11; i++)
		mean += y[i] / 11;
	unit = sqrt(log(12.0) * 12 / 11) * sigma;
	y[11] = mean + sqrt(3.0) * unit; /* one penalty would pay for it */
	assert_int_equal(changepoint_pelt(y, 12, sigma, 0, c, NULL), 0);
	y[11] = mean + sqrt(6.0) * unit;
	assert_int_equal(changepoint_pelt(y, 12, sigma, 0, c, NULL), 1);
	assert_true(c[11]);
	/* Two new versions make an ordinary segment. */
	y[10] = 106 + wiggle(11);
	y[11] = 106 + wiggle(12);
	assert_int_equal(changepoint_pelt(y, 12, 0, 2, c, NULL), 1);
	assert_true(c[10]);
	/* A short series: three equal values, then a step. */
	assert_int_equal(changepoint_pelt((const double[]){5, 5, 5, 9}, 4, 0, 1, c, NULL), 1);
	assert_true(c[3]);
	assert_int_equal(changepoint_pelt((const double[]){5, 9}, 2, 0, 1, c, NULL), 0);
}

/*
 * A version 90% faster than the ones before, then one 187% slower than it
 * (log space, as run times are judged): the step into the lone value and
 * the step out of it are both shifts, marked by the same rule; so is an
 * outlier's way back down.
 */
static void test_dip_both_ways(void **state)
{
	double y[12], fit[12];
	bool c[12];

	UNUSED(state);
	for (size_t i = 0; i < 10; i++)
		y[i] = log(10 * (1 + 0.01 * wiggle(i)));
	y[10] = log(1.0);
	y[11] = log(2.87);
	assert_int_equal(changepoint_pelt(y, 12, 0.01, log1p(0.02), c, fit), 2);
	assert_true(c[10] && c[11]);
	assert_true(fabs(expm1(fit[10] - fit[9]) + 0.9) < 0.01);
	assert_true(fabs(expm1(fit[11] - fit[10]) - 1.87) < 0.01);
	/* The mirror: a spike, then most of the way back. */
	y[10] = log(100.0);
	y[11] = log(100.0 / 2.87);
	assert_int_equal(changepoint_pelt(y, 12, 0.01, log1p(0.02), c, NULL), 2);
	assert_true(c[10] && c[11]);
}

static void test_noise_free_step(void **state)
{
	const double y[] = {5, 5, 5, 7, 7, 7};
	bool c[6];

	UNUSED(state);
	assert_int_equal(changepoint_pelt(y, 6, 0, 0.1, c, NULL), 1);
	assert_true(c[3]);
}

static void test_noise_estimate(void **state)
{
	/* Differences 2 -2 2 -2 2 -2 2 98 2 -2: median 2, absolute deviations
	 * 0 4 0 4 0 4 0 96 0 4, whose median is 2: the step barely counts. */
	const double y[] = {0, 2, 0, 2, 0, 2, 0, 2, 100, 102, 100};
	/* Differences 1 1 1 1 1 15: MAD 0, so the mean absolute difference,
	 * 20 / 6, stands in. */
	const double z[] = {0, 1, 2, 3, 4, 5, 20};

	UNUSED(state);
	assert_true(fabs(changepoint_noise(y, ARRAY_SIZE(y)) - 1.4826 * 2 / sqrt(2.0)) < 1e-9);
	assert_true(fabs(changepoint_noise(z, ARRAY_SIZE(z)) - 20.0 / 6 * 1.2533 / sqrt(2.0)) <
		    1e-9);
	assert_true(changepoint_noise(y, 2) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_step),       cmocka_unit_test(test_two_steps_and_back),
		cmocka_unit_test(test_noise_only),     cmocka_unit_test(test_noise_free_step),
		cmocka_unit_test(test_noise_estimate), cmocka_unit_test(test_step_at_newest),
		cmocka_unit_test(test_dip_both_ways),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
