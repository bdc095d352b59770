/*
 * analyze/hypo and analyze/degrade: the tests against scipy's figures
 * (scipy 1.10: stats.mannwhitneyu(a, b, alternative="two-sided",
 * method="asymptotic") and stats.ttest_ind(a, b, equal_var=False), printed
 * with repr and pasted), the classification boundaries, and the methods on
 * hand-made profiles with known answers.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/degrade.h"
#include "analyze/hypo.h"
#include "change_testlib.h"
#include "profile/profile.h"
#include "util/common.h"

#define assert_near(a, b, eps) near_check((a), (b), (eps), __FILE__, __LINE__)

static void near_check(double a, double b, double rel, const char *file, int line)
{
	if (!(fabs(a - b) <= rel * fmax(fabs(a), fabs(b))))
		fail_msg("%s:%d: %.17g != %.17g", file, line, a, b);
}

static const double a8[] = {1, 2, 3, 4, 5, 6, 7, 8};
static const double b9[] = {3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5};

static void test_mann_whitney(void **state)
{
	const double c[] = {1, 2, 2, 3, 3, 3, 4, 5}, d[] = {2, 3, 3, 4, 4, 5, 6, 6, 7};
	const double same[] = {4, 4, 4};
	double u;

	UNUSED(state);
	assert_near(hypo_mann_whitney(a8, 8, b9, 9, &u), 0.048539622897320577, 1e-9);
	assert_near(u, 15.0, 1e-12);
	/* With ties: the tie correction matters here. */
	assert_near(hypo_mann_whitney(c, 8, d, 9, &u), 0.062484795672341206, 1e-9);
	assert_near(u, 16.5, 1e-12);
	assert_near(hypo_mann_whitney(same, 3, same, 3, &u), 1.0, 0);
	assert_near(hypo_mann_whitney(a8, 0, b9, 9, &u), 1.0, 0);
}

static void test_welch(void **state)
{
	const double x[] = {10.1, 9.8, 10.3, 10.0, 9.9, 10.2}, y[] = {10.9, 11.2, 10.7, 11.1, 11.0};
	const double flat1[] = {3, 3, 3}, flat2[] = {4, 4};
	double t, df;

	UNUSED(state);
	assert_near(hypo_welch(a8, 8, b9, 9, &t, &df), 0.030764962469013744, 1e-8);
	assert_near(t, -2.3841582427170787, 1e-10);
	assert_near(hypo_welch(x, 6, y, 5, &t, &df), 2.766412618234705e-05, 1e-7);
	assert_near(t, -8.084409849806455, 1e-10);
	assert_near(hypo_welch(flat1, 3, flat2, 2, &t, &df), 0.0, 0);
	assert_near(hypo_welch(flat1, 3, flat1, 3, &t, &df), 1.0, 0);
	assert_near(hypo_welch(flat1, 1, flat2, 2, &t, &df), 1.0, 0);
}

static void test_bootstrap(void **state)
{
	double base[40], slow[40], lo, hi, lo2, hi2;

	UNUSED(state);
	/* Target exactly 10% slower, value by value: every resample's ratio
	 * of medians stays near 1.1. */
	for (int i = 0; i < 40; i++) {
		base[i] = 100 + (i * 7) % 13;
		slow[i] = base[i] * 1.1;
	}
	hypo_bootstrap_median_ratio(base, 40, slow, 40, 2000, 0.05, 42, &lo, &hi);
	assert_true(lo < 1.1 && hi > 1.1);
	assert_true(lo > 1.0 && hi < 1.2);
	/* The same seed gives the same interval. */
	hypo_bootstrap_median_ratio(base, 40, slow, 40, 2000, 0.05, 42, &lo2, &hi2);
	assert_true(lo == lo2 && hi == hi2);
	hypo_bootstrap_median_ratio(base, 0, slow, 40, 2000, 0.05, 42, &lo, &hi);
	assert_true(isnan(lo) && isnan(hi));
}

/* Short programs measure 0 s of user time now and then: a few resamples
 * with a zero baseline median must not void the interval. */
static void test_bootstrap_zero_baseline(void **state)
{
	double base[15], slow[15], zeros[15] = {0}, lo, hi;

	UNUSED(state);
	for (int i = 0; i < 15; i++) {
		base[i] = i < 3 ? 0 : 1.0 + 0.01 * ((i * 7) % 5);
		slow[i] = 1.3 + 0.01 * ((i * 7) % 5);
	}
	hypo_bootstrap_median_ratio(base, 15, slow, 15, 2000, 0.05, 0x5eed, &lo, &hi);
	assert_true(lo > 1.2 && lo < 1.3);
	assert_true(hi > 1.3 && hi < 1.4);
	/* Mostly zeros: the upper end is unbounded, the lower one still known. */
	for (int i = 0; i < 15; i++)
		base[i] = i < 7 ? 0 : 1.0;
	hypo_bootstrap_median_ratio(base, 15, slow, 15, 2000, 0.05, 0x5eed, &lo, &hi);
	assert_true(isinf(hi) && hi > 0);
	assert_true(lo > 1.2 && lo < 1.4);
	/* Nothing measured on either side is no change. */
	hypo_bootstrap_median_ratio(zeros, 15, zeros, 15, 500, 0.05, 1, &lo, &hi);
	assert_true(lo == 1 && hi == 1);
}

/*
 * van Elteren's stratified test, worked by hand: in each stratum U's
 * deviation from its mean n_a n_b / 2 and its variance n_a n_b (n + 1) / 12
 * (no ties), weighted by 1 / (n + 1), z = sum w (U - m) / sqrt(sum w² var).
 */
static void test_strata(void **state)
{
	const double a1[] = {1, 2, 3}, b1[] = {4, 5, 6};       /* U = 0, m = 4.5, var = 5.25 */
	const double a2[] = {10, 30, 50, 70}, b2[] = {20, 40}; /* U = 5, m = 4, var = 56/12 */
	struct hypo_stratum st[] = {{a1, b1, 3, 3}, {a2, b2, 4, 2}};
	double w1 = 1.0 / 7, w2 = 1.0 / 7, t = w1 * -4.5 + w2 * 1,
	       v = w1 * w1 * 5.25 + w2 * w2 * 56 / 12;
	double lo, hi;

	UNUSED(state);
	assert_near(hypo_van_elteren(st, 2), 2 * (1 - 0.5 * erfc(-fabs(t) / sqrt(v) / sqrt(2))),
		    1e-9);
	/* One stratum: Mann-Whitney without its continuity correction. */
	assert_near(hypo_van_elteren(st, 1), erfc(4.5 / sqrt(5.25) / sqrt(2)), 1e-9);
	/* Every stratum twice as slow in the target: the interval is 2 exactly. */
	{
		const double a[] = {1, 1.1, 0.9, 1, 1.05}, b[] = {2, 2.2, 1.8, 2, 2.1};
		const double c[] = {10, 11, 9, 10, 10.5}, d[] = {20, 22, 18, 20, 21};
		struct hypo_stratum two[] = {{a, b, 5, 5}, {c, d, 5, 5}};

		hypo_bootstrap_strata_ratio(two, 2, 500, 0.05, 1, &lo, &hi);
		assert_true(lo > 1.7 && hi < 2.3);
		assert_true(hypo_van_elteren(two, 2) < 0.01 && hypo_welch_strata(two, 2) < 0.01);
	}
}

static void test_classify(void **state)
{
	struct check_params cp;

	UNUSED(state);
	check_params_default(&cp);
	/* Not significant, or too small to matter: no change. */
	assert_int_equal(degrade_classify_stat(1.5, 1.2, 1.8, 0.05, &cp), CH_NO_CHANGE);
	assert_int_equal(degrade_classify_stat(1.019, 1.01, 1.03, 1e-6, &cp), CH_NO_CHANGE);
	/* Significant, but the interval reaches back below min_effect. */
	assert_int_equal(degrade_classify_stat(1.05, 1.01, 1.09, 0.01, &cp), CH_MAYBE_DEGRADATION);
	assert_int_equal(degrade_classify_stat(1.05, 1.02, 1.09, 0.01, &cp), CH_DEGRADATION);
	assert_int_equal(degrade_classify_stat(1.25, 1.10, 1.40, 0.01, &cp), CH_SEVERE_DEGRADATION);
	assert_int_equal(degrade_classify_stat(1.249, 1.10, 1.40, 0.01, &cp), CH_DEGRADATION);
	assert_int_equal(degrade_classify_stat(3.0, 2.0, 4.0, 0.001, &cp), CH_TOTAL_DEGRADATION);
	/* Speed-ups mirror slow-downs on the ratio. */
	assert_int_equal(degrade_classify_stat(1 / 1.05, 1 / 1.09, 1 / 1.02, 0.01, &cp),
			 CH_OPTIMIZATION);
	assert_int_equal(degrade_classify_stat(1 / 1.05, 1 / 1.09, 1 / 1.01, 0.01, &cp),
			 CH_MAYBE_OPTIMIZATION);
	assert_int_equal(degrade_classify_stat(0.4, 0.3, 0.5, 0.001, &cp), CH_TOTAL_OPTIMIZATION);
	assert_int_equal(degrade_classify_stat(0.7, 0.6, 0.8, 0.001, &cp), CH_SEVERE_OPTIMIZATION);
	assert_int_equal(degrade_classify_stat(NAN, 1, 1, 0.5, &cp), CH_UNKNOWN);
	/* An unbounded upper end (zero baseline resamples) still decides. */
	assert_int_equal(degrade_classify_stat(1.3, 1.25, INFINITY, 1e-5, &cp),
			 CH_SEVERE_DEGRADATION);
	assert_int_equal(degrade_classify_stat(0.8, 0.7, INFINITY, 1e-5, &cp),
			 CH_MAYBE_OPTIMIZATION);
	assert_string_equal(change_class_name(CH_SEVERE_DEGRADATION), "SevereDegradation");
	assert_true(change_is_degradation(CH_MAYBE_DEGRADATION));
	assert_false(change_is_degradation(CH_NO_CHANGE));
	assert_true(change_is_optimization(CH_TOTAL_OPTIMIZATION));
}

/* A time-like profile: @n runs of uid @uid [real] with amounts base*f(i). */
static void add_runs(struct profile *p, const char *uid, size_t n, double base, double jitter)
{
	const struct attr attrs[] = {
		{.name = "uid", .kind = COL_STR, .s = uid},
		{.name = "type", .kind = COL_STR, .s = "time"},
		{.name = "subtype", .kind = COL_STR, .s = "real"},
	};
	uint32_t t = profile_type_add(p, attrs, ARRAY_SIZE(attrs));
	struct column *c;

	for (size_t i = 0; i < n; i++) {
		size_t row = profile_res_add(p, t);

		c = table_col_get(p, &p->res, "amount", COL_F64);
		/* A deterministic spread of +-jitter around base. */
		col_set_f64(&p->res, c, row,
			    base * (1 + jitter * ((double)((i * 37) % 21) - 10) / 10));
	}
}

static struct profile *time_profile(double prog_ms, double other_ms, const char *extra)
{
	struct profile *p = profile_new();

	p->type = xstrdup("time");
	add_runs(p, "./prog", 30, prog_ms, 0.01);
	add_runs(p, "./other", 30, other_ms, 0.01);
	if (extra)
		add_runs(p, extra, 30, 1.0, 0.01);
	return p;
}

static void test_compare_stat(void **state)
{
	struct profile *base = time_profile(100, 50, "./gone");
	struct profile *target = time_profile(110, 50, "./new");
	struct check_params cp;
	struct change_list l = {0};
	const struct change *c;

	UNUSED(state);
	check_params_default(&cp);
	assert_int_equal(degrade_compare(base, target, "stat", &cp, &l), 0);
	assert_int_equal(l.n, 4);
	/* Sorted by location. */
	assert_string_equal(l.v[0].location, "./gone [real]");
	c = change_at(&l, "./prog [real]");
	assert_int_equal(c->cls, CH_DEGRADATION);
	assert_near(c->rel_change, 0.10, 1e-9);
	assert_true(c->ci_low > 0.02 && c->ci_high < 0.2);
	assert_true(c->confidence < 1e-6);
	assert_int_equal(c->n_baseline, 30);
	assert_int_equal(change_at(&l, "./other [real]")->cls, CH_NO_CHANGE);
	assert_int_equal(change_at(&l, "./gone [real]")->cls, CH_NOT_IN_TARGET);
	assert_int_equal(change_at(&l, "./new [real]")->cls, CH_NOT_IN_BASELINE);
	change_list_free(&l);

	/* aat misses the same 10%: it only sees a doubling. */
	assert_int_equal(degrade_compare(base, target, "aat", &cp, &l), 0);
	c = change_at(&l, "./prog [real]");
	assert_int_equal(c->cls, CH_NO_CHANGE);
	assert_near(c->confidence, 1.1, 1e-9);
	change_list_free(&l);
	profile_free(target);

	target = time_profile(250, 20, NULL);
	assert_int_equal(degrade_compare(base, target, "aat", &cp, &l), 0);
	assert_int_equal(change_at(&l, "./prog [real]")->cls, CH_DEGRADATION);
	assert_int_equal(change_at(&l, "./other [real]")->cls, CH_OPTIMIZATION);
	change_list_free(&l);
	assert_int_equal(degrade_compare(base, target, "stat", &cp, &l), 0);
	assert_int_equal(change_at(&l, "./prog [real]")->cls, CH_TOTAL_DEGRADATION);
	assert_int_equal(change_at(&l, "./other [real]")->cls, CH_TOTAL_OPTIMIZATION);
	change_list_free(&l);

	assert_int_equal(degrade_compare(base, target, "nosuch", &cp, &l), -6);
	profile_free(base);
	profile_free(target);
}

static void test_too_few_runs(void **state)
{
	struct profile *base = profile_new(), *target = profile_new();
	struct check_params cp;
	struct change_list l = {0};

	UNUSED(state);
	check_params_default(&cp);
	add_runs(base, "x", 1, 10, 0);
	add_runs(target, "x", 1, 20, 0);
	assert_int_equal(degrade_compare(base, target, "stat", &cp, &l), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.v[0].cls, CH_UNKNOWN);
	assert_near(l.v[0].baseline, 10, 1e-12);
	change_list_free(&l);
	profile_free(base);
	profile_free(target);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mann_whitney), cmocka_unit_test(test_welch),
		cmocka_unit_test(test_bootstrap),    cmocka_unit_test(test_bootstrap_zero_baseline),
		cmocka_unit_test(test_classify),     cmocka_unit_test(test_compare_stat),
		cmocka_unit_test(test_too_few_runs), cmocka_unit_test(test_strata),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
