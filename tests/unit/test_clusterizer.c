/* The clusterizer postprocessor on hand-made profiles whose clusters are
 * worked out by hand (docs/postprocess/clusterizer.md). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/postproc.h"
#include "profile/profile.h"
#include "util/common.h"

/* The end of a variadic argument list: a null pointer of the right type. */
#define END ((char *)NULL)

/* A time profile of resources (uid, subtype or NULL, amount) in this order. */
struct res {
	const char *uid, *subtype;
	double amount;
};

static struct profile *make(const struct res *r, size_t n)
{
	struct profile *p = profile_new();

	p->type = xstrdup("time");
	for (size_t i = 0; i < n; i++) {
		struct attr a[] = {
			{.name = "uid", .kind = COL_STR, .s = r[i].uid},
			{.name = "type", .kind = COL_STR, .s = "time"},
			{.name = "subtype", .kind = COL_STR, .s = r[i].subtype},
		};
		size_t row = profile_res_add(p, profile_type_add(p, a, r[i].subtype ? 3 : 2));
		struct attr amount = {.name = "amount", .kind = COL_F64, .f = r[i].amount};

		if (!isnan(r[i].amount))
			table_set(p, &p->res, row, &amount);
	}
	return p;
}

/* Runs the clusterizer with @args (NULL-terminated) on @p. */
static void run(struct profile *p, ...)
{
	char *argv[16] = {"clusterizer"};
	int argc = 1;
	va_list ap;

	va_start(ap, p);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	if (postproc_run_argv(p, argc, argv) != 0)
		fail_msg("clusterizer: %s", err_msg());
}

/* Each resource's structure-unit-size (0 when it has none) and cluster. */
static void expect(const struct profile *p, const int64_t *want, size_t n)
{
	const struct column *size = table_col(&p->res, "structure-unit-size");
	const struct column *cl = table_col(&p->res, "cluster");

	assert_int_equal(profile_nres(p), n);
	for (size_t i = 0; i < n; i++) {
		int64_t got = size && col_has(size, i) ? col_i64(size, i) : 0;

		if (got != want[i])
			fail_msg("resource %zu: size %lld, want %lld", i, (long long)got,
				 (long long)want[i]);
		if (want[i] && (!cl || !col_has(cl, i) || col_i64(cl, i) != want[i]))
			fail_msg("resource %zu: no cluster %lld", i, (long long)want[i]);
	}
}

static void test_sort_order(void **state)
{
	/* Two uids, and one uid's two subtypes: each its own group. */
	const struct res r[] = {
		{"a", NULL, 5}, {"b", NULL, 2},	  {"a", NULL, 1},   {"a", NULL, 3},
		{"b", NULL, 2}, {"c", "real", 9}, {"c", "user", 1}, {"c", "real", 4},
	};
	const int64_t want[] = {3, 1, 1, 2, 2, 2, 1, 1};
	struct profile *p = make(r, ARRAY_SIZE(r));

	UNUSED(state);
	run(p, END);
	expect(p, want, ARRAY_SIZE(want));
	assert_non_null(strstr(p->postprocessors, "\"strategy\":\"sort_order\""));
	profile_free(p);
}

static void test_window_absolute_width(void **state)
{
	/* Sorted: 1, 1.2, 1.4, 3, 3.1, 10. A window holds 2 and reaches 50%
	 * above its first amount: {1, 1.2} full, {1.4} (3 > 2.1), {3, 3.1}
	 * full, {10}. */
	const struct res r[] = {
		{"x", NULL, 3.1}, {"x", NULL, 1}, {"x", NULL, 10},
		{"x", NULL, 1.4}, {"x", NULL, 3}, {"x", NULL, 1.2},
	};
	const int64_t want[] = {3, 1, 4, 2, 3, 1};
	struct profile *p = make(r, ARRAY_SIZE(r));

	UNUSED(state);
	run(p, "--strategy", "sliding-window", "--window-width", "2", "--width-measure", "absolute",
	    "--window-height", "0.5", END);
	expect(p, want, ARRAY_SIZE(want));
	profile_free(p);
}

static void test_window_absolute_height(void **state)
{
	/* A window 1 high (in the amount's unit) and wide enough for all:
	 * {1, 1.5, 2}, {2.5, 3.5}, {5}; Perun's flag spelling. */
	const struct res r[] = {
		{"x", NULL, 1},	  {"x", NULL, 1.5}, {"x", NULL, 2},
		{"x", NULL, 2.5}, {"x", NULL, 3.5}, {"x", NULL, 5},
	};
	const int64_t want[] = {1, 1, 1, 2, 2, 3};
	struct profile *p = make(r, ARRAY_SIZE(r));

	UNUSED(state);
	run(p, "--strategy=sliding_window", "--window-width=100", "--fixed-window-width",
	    "--window-height=1", "--fixed-window-height", END);
	expect(p, want, ARRAY_SIZE(want));
	assert_non_null(strstr(p->postprocessors, "\"height_measure\":\"absolute\""));
	profile_free(p);
}

static void test_window_relative_width(void **state)
{
	/* 10 resources, a window 20% of them wide: clusters of two, the
	 * height never the limit. */
	struct res r[10];
	const int64_t want[] = {1, 1, 2, 2, 3, 3, 4, 4, 5, 5};
	struct profile *p;

	UNUSED(state);
	for (size_t i = 0; i < 10; i++)
		r[i] = (struct res){"x", NULL, (double)i + 1};
	p = make(r, 10);
	run(p, "--strategy", "sliding-window", "--window-width", "0.2", "--window-height", "1000",
	    "--height-measure", "absolute", END);
	expect(p, want, ARRAY_SIZE(want));
	profile_free(p);
}

static void test_defaults_window(void **state)
{
	/* Perun's defaults (1% wide, 1% high) on 3 resources: a window of
	 * 0.03 resources holds one, so each is its own cluster. */
	const struct res r[] = {{"x", NULL, 1}, {"x", NULL, 1.001}, {"x", NULL, 1.002}};
	const int64_t want[] = {1, 2, 3};
	struct profile *p = make(r, ARRAY_SIZE(r));

	UNUSED(state);
	run(p, "--strategy", "sliding-window", END);
	expect(p, want, ARRAY_SIZE(want));
	profile_free(p);
}

static void test_keeps_sizes(void **state)
{
	/* A resource that has a size keeps it and is not counted in its
	 * group; one without an amount gets nothing. */
	const struct res r[] = {{"x", NULL, 7}, {"x", NULL, 1}, {"x", NULL, NAN}, {"x", NULL, 3}};
	const int64_t want[] = {100, 1, 0, 2};
	struct profile *p = make(r, ARRAY_SIZE(r));
	struct attr size = {.name = "structure-unit-size", .kind = COL_I64, .i = 100};

	UNUSED(state);
	table_set(p, &p->res, 0, &size);
	run(p, END);
	assert_false(col_has(table_col(&p->res, "cluster"), 0));
	/* expect() wants the cluster where it wants a size: check by hand. */
	for (size_t i = 1; i < 4; i++) {
		const struct column *c = table_col(&p->res, "structure-unit-size");
		int64_t got = col_has(c, i) ? col_i64(c, i) : 0;

		assert_int_equal(got, want[i]);
	}
	assert_int_equal(col_i64(table_col(&p->res, "structure-unit-size"), 0), 100);
	profile_free(p);
}

static void bad(const char *want, ...)
{
	char *argv[8] = {"clusterizer"};
	struct profile *p = profile_new();
	int argc = 1;
	va_list ap;

	va_start(ap, want);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	assert_int_equal(postproc_run_argv(p, argc, argv), ERR_INVALID);
	if (!strstr(err_msg(), want))
		fail_msg("'%s' does not say '%s'", err_msg(), want);
	profile_free(p);
}

static void test_bad_options(void **state)
{
	UNUSED(state);
	bad("--strategy is sort-order or sliding-window, not 'kmeans'", "--strategy", "kmeans",
	    END);
	bad("--width-measure weighted is not supported", "--width-measure", "weighted", END);
	bad("--window-width wants a number > 0, not '0'", "--window-width", "0", END);
	bad("--window-height wants a number, not 'x'", "--window-height", "x", END);
	bad("ambiguous option '--window'", "--window", END); /* window-width or -height */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sort_order),
		cmocka_unit_test(test_window_absolute_width),
		cmocka_unit_test(test_window_absolute_height),
		cmocka_unit_test(test_window_relative_width),
		cmocka_unit_test(test_defaults_window),
		cmocka_unit_test(test_keeps_sizes),
		cmocka_unit_test(test_bad_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
