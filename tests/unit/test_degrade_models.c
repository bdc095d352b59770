/*
 * The model-based checks (bmoe, int, loc, fast, lreg, preg) on profiles
 * whose models are written by hand, eto on planted outliers, and the
 * models reader and evaluator they rest on.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/degrade.h"
#include "analyze/models.h"
#include "change_testlib.h"
#include "profile/profile.h"
#include "util/common.h"

#define LINEAR(uid)                                                                                \
	"{\"uid\":\"" uid "\",\"model\":\"linear\",\"method\":\"full\",\"r_square\":0.99,"         \
	"\"x_start\":0,\"x_end\":100,\"coeffs\":[{\"name\":\"b0\",\"value\":1},"                   \
	"{\"name\":\"b1\",\"value\":1}]}"
#define CONSTANT(uid)                                                                              \
	"{\"uid\":\"" uid "\",\"model\":\"constant\",\"method\":\"full\",\"r_square\":0.2,"        \
	"\"x_start\":0,\"x_end\":100,\"coeffs\":[{\"name\":\"b0\",\"value\":40}]}"
#define QUADRATIC(uid)                                                                             \
	"{\"uid\":\"" uid "\",\"model\":\"quadratic\",\"method\":\"full\",\"r_square\":0.98,"      \
	"\"x_start\":0,\"x_end\":100,\"coeffs\":[{\"name\":\"b0\",\"value\":1},"                   \
	"{\"name\":\"b1\",\"value\":1},{\"name\":\"b2\",\"value\":0.01}]}"

static struct profile *with_models(const char *models)
{
	struct profile *p = profile_new();

	p->type = xstrdup("mixed");
	p->models = xstrdup(models);
	return p;
}

static void test_models_reader(void **state)
{
	struct profile *p = with_models("[" LINEAR("f") "," CONSTANT("f") "," QUADRATIC(
		"g") ","
		     "{\"uid\":\"h\",\"model\":\"regressogram\",\"r_square\":0.5,\"x_start\":0,"
		     "\"x_end\":30,\"x_values\":[0,10,20],\"bucket_stats\":[1,2,4]},"
		     "{\"uid\":\"h\",\"model\":\"mystery\"}]");
	struct model_set s;
	const struct model *m;

	UNUSED(state);
	assert_int_equal(models_load(p, &s), 0);
	assert_int_equal(s.n, 4);
	/* Sorted by uid, the better fit first. */
	assert_string_equal(s.v[0].name, "linear");
	assert_int_equal(models_find_uid(&s, "g"), 2);
	assert_int_equal(models_find_uid(&s, "zzz"), s.n);
	m = models_best_at(&s, 0, 50, MODELS_ANY);
	assert_true(m && m->kind == MODEL_LINEAR);
	assert_true(fabs(model_eval(m, 50) - 51) < 1e-12);
	assert_true(fabs(model_eval(&s.v[2], 10) - 12) < 1e-12);
	/* 1 + x over [0, 100]: 100 + 5000. */
	assert_true(fabs(model_integral(m, 0, 100) - 5100) < 1e-9);
	/* A regressogram is a step function that holds its last bucket. */
	m = &s.v[3];
	assert_true(model_eval(m, 15) == 2 && model_eval(m, 25) == 4 && model_eval(m, -1) == 1);
	assert_null(models_best_at(&s, 0, 101, MODELS_ANY));
	models_free(&s);
	free(p->models);
	p->models = xstrdup("{\"not\": \"a list\"}");
	assert_int_equal(models_load(p, &s), -4);
	profile_free(p);
}

static void test_linear_to_quadratic(void **state)
{
	struct profile *base =
		with_models("[" LINEAR("f") "," LINEAR("same") "," LINEAR("gone") "]");
	struct profile *target =
		with_models("[" QUADRATIC("f") "," LINEAR("same") "," LINEAR("new") "]");
	static const char *const methods[] = {"bmoe", "int", "loc", "fast", "lreg", "preg"};
	struct check_params cp;

	UNUSED(state);
	check_params_default(&cp);
	for (size_t i = 0; i < ARRAY_SIZE(methods); i++) {
		struct change_list l = {0};
		const struct change *c;

		assert_int_equal(degrade_compare(base, target, methods[i], &cp, &l), 0);
		assert_int_equal(l.n, 4);
		c = change_at(&l, "f");
		if (!change_is_degradation(c->cls) || c->cls == CH_MAYBE_DEGRADATION)
			fail_msg("%s: f is %s", methods[i], change_class_name(c->cls));
		assert_int_equal(change_at(&l, "same")->cls, CH_NO_CHANGE);
		assert_int_equal(change_at(&l, "gone")->cls, CH_NOT_IN_TARGET);
		assert_int_equal(change_at(&l, "new")->cls, CH_NOT_IN_BASELINE);
		assert_string_equal(c->method, methods[i]);
		change_list_free(&l);
	}
	profile_free(base);
	profile_free(target);
}

/* Models that name a subtype (a time profile's real, user, sys of one
 * command) are compared each with the baseline's of the same subtype. */
#define WITH_SUBTYPE(sub, model) "{\"uid\":\"./prog\",\"subtype\":\"" sub "\"," model

static void test_subtypes_apart(void **state)
{
	struct profile *base = with_models("[" WITH_SUBTYPE(
		"real",
		"\"model\":\"linear\",\"r_square\":0.99,\"x_start\":0,"
		"\"x_end\":100,\"coeffs\":[{\"name\":\"b0\",\"value\":1},"
		"{\"name\":\"b1\",\"value\":1}]}") "," WITH_SUBTYPE("sys",
								    "\"model\":\"constant\",\"r_"
								    "square\":1,\"x_start\":0,"
								    "\"x_end\":100,\"coeffs\":[{"
								    "\"name\":\"b0\",\"value\":0}]"
								    "}") "]");
	struct profile *target = with_models("[" WITH_SUBTYPE(
		"real",
		"\"model\":\"quadratic\",\"r_square\":0.98,\"x_start\":0,"
		"\"x_end\":100,\"coeffs\":[{\"name\":\"b0\",\"value\":1},"
		"{\"name\":\"b1\",\"value\":1},{\"name\":\"b2\","
		"\"value\":0.01}]}") "," WITH_SUBTYPE("sys", "\"model\":\"constant\",\"r_square\":"
							     "1,\"x_start\":0,"
							     "\"x_end\":100,\"coeffs\":[{\"name\":"
							     "\"b0\",\"value\":0}]}") "]");
	struct model_set s;
	struct check_params cp;
	struct change_list l = {0};

	UNUSED(state);
	assert_int_equal(models_load(base, &s), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.v[0].uid, "./prog [real]");
	assert_int_equal(models_find_uid(&s, "./prog [sys]"), 1);
	models_free(&s);
	check_params_default(&cp);
	assert_int_equal(degrade_compare(base, target, "bmoe", &cp, &l), 0);
	assert_int_equal(l.n, 2);
	assert_true(change_is_degradation(change_at(&l, "./prog [real]")->cls));
	assert_int_equal(change_at(&l, "./prog [sys]")->cls, CH_NO_CHANGE);
	change_list_free(&l);
	profile_free(base);
	profile_free(target);
}

/* The mean of 0.01 x^2 over 65 evenly spaced x in [0, 100]. */
static double grid_mean_sq(void)
{
	double sum = 0;

	for (int i = 0; i < 65; i++)
		sum += 0.01 * pow(100.0 * i / 64, 2) / 65;
	return sum;
}

static void test_exact_figures(void **state)
{
	struct profile *base = with_models("[" LINEAR("f") "]");
	struct profile *target = with_models("[" QUADRATIC("f") "]");
	struct check_params cp;
	struct change_list l = {0};

	UNUSED(state);
	check_params_default(&cp);
	/* int: 5100 against 5100 + 0.01 * 100^3 / 3. */
	assert_int_equal(degrade_compare(base, target, "int", &cp, &l), 0);
	assert_true(fabs(l.v[0].baseline - 5100) < 1e-6);
	assert_true(fabs(l.v[0].target - (5100 + 1e4 / 3)) < 1e-6);
	assert_int_equal(l.v[0].cls, CH_SEVERE_DEGRADATION);
	change_list_free(&l);
	/* preg: the difference 0.01 x^2 is found exactly (degree 2); over
	 * [0, 100] it is 100 / 3 on average against a baseline of 51 on
	 * average (the grid's mean, 65 points). */
	assert_int_equal(degrade_compare(base, target, "preg", &cp, &l), 0);
	assert_true(fabs(l.v[0].rel_change - grid_mean_sq() / 51) < 1e-9);
	assert_true(l.v[0].confidence > 0.999999);
	change_list_free(&l);
	/* bmoe: linear (rank 2) to quadratic (rank 3), confidence the worse r^2. */
	assert_int_equal(degrade_compare(base, target, "bmoe", &cp, &l), 0);
	assert_int_equal(l.v[0].cls, CH_DEGRADATION);
	assert_true(l.v[0].baseline == 2 && l.v[0].target == 3);
	assert_true(fabs(l.v[0].confidence - 0.98) < 1e-12);
	change_list_free(&l);
	/* The other way round is an optimisation; a poor fit makes it a maybe. */
	assert_int_equal(degrade_compare(target, base, "bmoe", &cp, &l), 0);
	assert_int_equal(l.v[0].cls, CH_OPTIMIZATION);
	change_list_free(&l);
	profile_free(base);
	base = with_models("[" CONSTANT("f") "]");
	assert_int_equal(degrade_compare(base, target, "bmoe", &cp, &l), 0);
	assert_int_equal(l.v[0].cls, CH_MAYBE_DEGRADATION);
	change_list_free(&l);
	profile_free(base);
	profile_free(target);
}

static void add_location(struct profile *p, const char *uid, double amount)
{
	const struct attr a[] = {{.name = "uid", .kind = COL_STR, .s = uid}};
	size_t row = profile_res_add(p, profile_type_add(p, a, 1));
	struct column *c = table_col_get(p, &p->res, "amount", COL_F64);

	col_set_f64(&p->res, c, row, amount);
}

static void test_eto(void **state)
{
	struct profile *base = profile_new(), *target = profile_new();
	struct check_params cp;
	struct change_list l = {0};
	char uid[16];

	UNUSED(state);
	check_params_default(&cp);
	/* Ten functions each take 1-2% longer; one takes twice as long, and
	 * one got faster by as much: only those two are outliers. */
	for (int i = 0; i < 12; i++) {
		snprintf(uid, sizeof(uid), "f%02d", i);
		add_location(base, uid, 100);
		add_location(target, uid, i == 3 ? 200 : i == 7 ? 0 : 101 + i % 2);
	}
	assert_int_equal(degrade_compare(base, target, "eto", &cp, &l), 0);
	assert_int_equal(l.n, 12);
	assert_int_equal(change_at(&l, "f03")->cls, CH_SEVERE_DEGRADATION);
	assert_int_equal(change_at(&l, "f07")->cls, CH_SEVERE_OPTIMIZATION);
	assert_int_equal(change_at(&l, "f00")->cls, CH_NO_CHANGE);
	assert_int_equal(change_at(&l, "f01")->cls, CH_NO_CHANGE);
	assert_string_equal(change_at(&l, "f03")->confidence_kind, "z-score");
	assert_true(change_at(&l, "f03")->confidence > 3.5);
	change_list_free(&l);
	profile_free(base);
	profile_free(target);
}

/* Most locations did not move at all (a MAD of 0): the one that doubled
 * is still the clearest, severe outlier, not a z-score of 0. */
static void test_eto_most_unmoved(void **state)
{
	struct profile *base = profile_new(), *target = profile_new();
	struct check_params cp;
	struct change_list l = {0};
	char uid[16];

	UNUSED(state);
	check_params_default(&cp);
	for (int i = 0; i < 8; i++) {
		snprintf(uid, sizeof(uid), "g%d", i);
		add_location(base, uid, 100 + i);
		add_location(target, uid, i == 5 ? 2 * (100 + i) : 100 + i);
	}
	assert_int_equal(degrade_compare(base, target, "eto", &cp, &l), 0);
	assert_int_equal(change_at(&l, "g5")->cls, CH_SEVERE_DEGRADATION);
	/* d = 105, the median 0, the mean absolute deviation 105 / 8. */
	assert_true(fabs(change_at(&l, "g5")->confidence - 8 / 1.2533) < 1e-9);
	assert_int_equal(change_at(&l, "g0")->cls, CH_NO_CHANGE);
	assert_true(change_at(&l, "g0")->confidence == 0);
	change_list_free(&l);
	/* Nothing moved: no outlier, every z-score 0. */
	assert_int_equal(degrade_compare(base, base, "eto", &cp, &l), 0);
	for (size_t i = 0; i < l.n; i++)
		assert_true(l.v[i].cls == CH_NO_CHANGE && l.v[i].confidence == 0);
	change_list_free(&l);
	profile_free(base);
	profile_free(target);
}

/* A check set to a model method must not pass on profiles without models. */
static void test_without_models(void **state)
{
	static const char *const methods[] = {"bmoe", "int", "loc", "fast", "lreg", "preg"};
	struct profile *base = profile_new(), *target = profile_new();
	struct profile *fitted = with_models("[" LINEAR("f") "]");
	struct profile *empty = profile_new();
	struct check_params cp;

	UNUSED(state);
	check_params_default(&cp);
	add_location(base, "f", 10);
	add_location(base, "g", 10);
	add_location(target, "f", 30);
	add_location(target, "h", 30);
	for (size_t m = 0; m < ARRAY_SIZE(methods); m++) {
		struct change_list l = {0};

		assert_int_equal(degrade_compare(base, target, methods[m], &cp, &l), 0);
		assert_int_equal(l.n, 3);
		for (size_t i = 0; i < l.n; i++) {
			assert_int_equal(l.v[i].cls, CH_UNKNOWN);
			assert_non_null(strstr(l.v[i].note, "no models in either profile"));
			assert_string_equal(l.v[i].method, methods[m]);
		}
		assert_int_equal(change_at(&l, "f")->n_baseline, 1);
		assert_int_equal(change_at(&l, "h")->n_baseline, 0);
		change_list_free(&l);
	}
	{
		struct change_list l = {0};

		/* Models on one side only: the side without is named. */
		assert_int_equal(degrade_compare(fitted, target, "int", &cp, &l), 0);
		assert_int_equal(l.n, 2);
		assert_int_equal(change_at(&l, "f")->cls, CH_UNKNOWN);
		assert_non_null(strstr(change_at(&l, "f")->note, "no models in the target"));
		change_list_free(&l);
		/* Not even a resource: still one result. */
		assert_int_equal(degrade_compare(empty, empty, "bmoe", &cp, &l), 0);
		assert_int_equal(l.n, 1);
		assert_int_equal(l.v[0].cls, CH_UNKNOWN);
		change_list_free(&l);
		/* With models on both sides there is no note. */
		assert_int_equal(degrade_compare(fitted, fitted, "int", &cp, &l), 0);
		assert_int_equal(l.n, 1);
		assert_int_equal(l.v[0].cls, CH_NO_CHANGE);
		assert_null(l.v[0].note);
		change_list_free(&l);
	}
	profile_free(base);
	profile_free(target);
	profile_free(fitted);
	profile_free(empty);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_models_reader),
		cmocka_unit_test(test_linear_to_quadratic),
		cmocka_unit_test(test_subtypes_apart),
		cmocka_unit_test(test_exact_figures),
		cmocka_unit_test(test_eto),
		cmocka_unit_test(test_eto_most_unmoved),
		cmocka_unit_test(test_without_models),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
