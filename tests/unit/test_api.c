/*
 * libveles through its public header alone (include/veles.h): the
 * resources as columns, parts as JSON, queries and their tables, errors.
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

#include "api_testlib.h"
#include "veles.h"

static void test_versions_and_errors(void **state)
{
	veles_profile *p = (veles_profile *)1;

	(void)state;
	assert_int_equal(veles_abi_version(), VELES_ABI_VERSION);
	assert_non_null(veles_version());
	assert_int_equal(veles_profile_load("/nonexistent/x.perf", &p), VELES_ERR_NOTFOUND);
	assert_null(p);
	assert_non_null(strstr(veles_last_error(), "/nonexistent/x.perf"));
	assert_string_equal(veles_error_name(VELES_ERR_PARSE), "parse error");
	assert_string_equal(veles_error_name(VELES_ERR_NOTFOUND), "not found");
	assert_string_equal(veles_error_name(-99), "error");
}

/* trace.perf: 4 types, 7 resources; amount 1 0 1 1 1 6 0. */
static void test_resources(void **state)
{
	veles_profile *p = load_data("trace.perf");
	const veles_table *t = veles_profile_resources(p);
	long uid = veles_table_find(t, "uid"), amount = veles_table_find(t, "amount");
	veles_column c;
	double sum = 0;

	(void)state;
	assert_ptr_equal(t, veles_profile_resources(p)); /* made once */
	assert_int_equal(veles_table_nrows(t), 7);
	assert_true(uid >= 0 && amount >= 0);
	assert_int_equal(veles_table_column(t, (size_t)uid, &c), 0);
	assert_int_equal(c.kind, VELES_STR);
	assert_non_null(c.index);
	assert_int_equal(c.len, 4);
	assert_string_equal(veles_table_text(t, (size_t)uid, 5), "SLList_init(SLList*)");
	assert_int_equal(veles_table_column(t, (size_t)amount, &c), 0);
	assert_int_equal(c.kind, VELES_I32);
	assert_null(c.index);
	assert_null(c.absent);
	for (size_t r = 0; r < veles_table_nrows(t); r++)
		sum += ((const int32_t *)c.data)[r];
	assert_true(sum == 10);
	assert_true(veles_table_num(t, (size_t)amount, 5) == 6);
	assert_true(isnan(veles_table_num(t, (size_t)uid, 0)));
	assert_null(veles_table_text(t, (size_t)amount, 0));
	assert_int_equal(veles_table_column(t, 99, &c), VELES_ERR_NOTFOUND);
	assert_int_equal(veles_table_find(t, "nosuch"), -1);
	assert_string_equal(veles_table_string(t, UINT32_MAX), "");
	veles_profile_free(p);
}

static void test_parts(void **state)
{
	veles_profile *p = load_data("time.perf");

	(void)state;
	assert_string_equal(veles_profile_get(p, "cmd"), "./list_search");
	assert_string_equal(veles_profile_get(p, "collector"), "time");
	assert_null(veles_profile_get(p, "nosuch"));
	assert_string_equal(veles_profile_json(p, "postprocessors"), "[]");
	assert_ptr_equal(veles_profile_json(p, "header"), veles_profile_json(p, "header"));
	assert_null(veles_profile_json(p, "resources"));
	assert_non_null(strstr(veles_last_error(), "no part 'resources'"));
	assert_string_equal(veles_profile_name(p), "time.perf");
	assert_string_equal(veles_profile_id(p), "");
	veles_profile_free(p);
}

/* A postprocessor run in memory: the models appear in what is read after. */
static void test_postprocess(void **state)
{
	veles_profile *p = load_data("trace.perf");
	const char *run[] = {"regression_analysis", "-m", "full", NULL};
	const char *unknown[] = {"nosuch", NULL}, *bad[] = {"regression-analysis", "--bogus", NULL};
	const char *models;

	(void)state;
	assert_string_equal(veles_profile_json(p, "models"), "[]");
	assert_int_equal(veles_postprocess(p, run), 0);
	models = veles_profile_json(p, "models");
	assert_non_null(models);
	assert_non_null(strstr(models, "\"model\""));
	assert_non_null(strstr(veles_profile_json(p, "postprocessors"), "regression-analysis"));
	assert_int_equal(veles_postprocess(p, unknown), VELES_ERR_INVALID);
	assert_non_null(strstr(veles_last_error(), "nosuch"));
	assert_int_equal(veles_postprocess(p, bad), VELES_ERR_INVALID);
	assert_non_null(strstr(veles_last_error(), "--bogus"));
	assert_int_equal(veles_postprocess(p, NULL), VELES_ERR_INVALID);
	veles_profile_free(p);
}

static void test_query(void **state)
{
	veles_profile *p = load_data("trace.perf");
	veles_query *q;
	veles_table *t;

	(void)state;
	assert_int_equal(veles_query_new(&q), 0);
	assert_int_equal(veles_query_where(q, "amount>0"), 0);
	assert_int_equal(veles_query_run(q, p, &t), 0);
	assert_int_equal(veles_table_nrows(t), 5);
	assert_string_equal(veles_table_text(t, (size_t)veles_table_find(t, "uid"), 4),
			    "SLList_init(SLList*)");
	veles_table_free(t);
	assert_int_equal(veles_query_group_by(q, "uid", "sum", NULL), 0);
	assert_int_equal(veles_query_run(q, p, &t), 0);
	/* Groups in order of their value: destroy, init, insert. */
	assert_int_equal(veles_table_nrows(t), 3);
	assert_int_equal(veles_table_ncols(t), 3);
	assert_string_equal(veles_table_text(t, 0, 1), "SLList_init(SLList*)");
	assert_true(veles_table_num(t, 1, 2) == 3 && veles_table_num(t, 2, 2) == 3);
	veles_table_free(t);
	assert_int_equal(veles_query_group_by(q, "uid", "mode", NULL), VELES_ERR_INVALID);
	assert_int_equal(veles_query_where(q, "amount"), VELES_ERR_INVALID);
	veles_query_any(q, 1);
	assert_int_equal(veles_query_where(q, "amount=6"), 0);
	assert_int_equal(veles_query_group_by(q, "structure-unit-size", "count", NULL), 0);
	assert_int_equal(veles_query_run(q, p, &t), 0);
	assert_int_equal(veles_table_ncols(t), 2);
	assert_string_equal(veles_table_text(t, 0, 0), "0");
	veles_table_free(t);
	veles_query_free(q);
	veles_profile_free(p);
}

static void test_check_options(void **state)
{
	veles_check *c;
	veles_table *t = (veles_table *)1;

	(void)state;
	assert_int_equal(veles_check_new(NULL, &c), 0);
	assert_int_equal(veles_check_set(c, "method", "aat"), 0);
	assert_int_equal(veles_check_set(c, "alpha", "0.01"), 0);
	/* Perun's name of a method, and its model pairings. */
	assert_int_equal(veles_check_set(c, "method", "average_amount_threshold"), 0);
	assert_int_equal(veles_check_set(c, "method", "averages"), VELES_ERR_INVALID);
	assert_int_equal(veles_check_set(c, "models-type", "best-both"), 0);
	assert_int_equal(veles_check_set(c, "models-type", "best"), VELES_ERR_INVALID);
	assert_non_null(strstr(veles_last_error(), "models-type: unknown strategy 'best'"));
	assert_int_equal(veles_check_set(c, "rounds", "50"), VELES_ERR_INVALID);
	assert_int_equal(veles_check_set(c, "strict-env", "maybe"), VELES_ERR_INVALID);
	assert_int_equal(veles_check_set(c, "colour", "red"), VELES_ERR_INVALID);
	assert_non_null(strstr(veles_last_error(), "unknown check option 'colour'"));
	/* Versions need a project. */
	assert_int_equal(veles_check_versions(c, "HEAD~1", "HEAD", &t), VELES_ERR_INVALID);
	assert_null(t);
	veles_check_free(c);
}

/* time.perf against itself, and against trace.perf by another value. */
static void test_diff_and_history(void **state)
{
	veles_profile *a = load_data("time.perf"), *b = load_data("time.perf");
	veles_table *t = (veles_table *)1;
	long rel;

	(void)state;
	assert_int_equal(veles_diff_profiles(a, b, NULL, NULL, NULL, &t), 0);
	assert_true(veles_table_nrows(t) > 0);
	rel = veles_table_find(t, "rel_change");
	assert_true(rel >= 0);
	/* The same profile twice: every group the same on both sides (no
	 * relative change where the baseline is 0). */
	for (size_t i = 0; i < veles_table_nrows(t); i++) {
		double base = veles_table_num(t, 1, i), r = veles_table_num(t, (size_t)rel, i);

		assert_true(base == veles_table_num(t, 2, i));
		assert_true(base == 0 ? isnan(r) : r == 0);
	}
	assert_non_null(veles_table_text(t, 0, 0));
	veles_table_free(t);
	/* Grouped by another attribute, counted. */
	assert_int_equal(veles_diff_profiles(a, b, NULL, "subtype", "count", &t), 0);
	assert_true(veles_table_num(t, 1, 0) >= 1);
	veles_table_free(t);
	assert_int_equal(veles_diff_profiles(a, b, NULL, NULL, "mode", &t), VELES_ERR_INVALID);
	assert_null(t);
	assert_int_equal(veles_diff_profiles(a, b, "no-such-value", NULL, NULL, &t),
			 VELES_ERR_INVALID);
	assert_non_null(strstr(veles_last_error(), "numeric 'no-such-value'"));
	/* A history needs a project. */
	assert_int_equal(veles_history(NULL, NULL, 0, "[real]", &t), VELES_ERR_INVALID);
	assert_null(t);
	veles_profile_free(a);
	veles_profile_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_versions_and_errors),
		cmocka_unit_test(test_resources),
		cmocka_unit_test(test_parts),
		cmocka_unit_test(test_query),
		cmocka_unit_test(test_postprocess),
		cmocka_unit_test(test_check_options),
		cmocka_unit_test(test_diff_and_history),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
