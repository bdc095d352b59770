/*
 * The bounds collector's pieces that are not the analysis itself (the
 * suite in tests/data/bounds/ tests that): bound expressions as text and
 * as polynomials, classes, the pairing of two profiles' loops, and check
 * on bounds profiles.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/bound_expr.h"
#include "analyze/bound_items.h"
#include "analyze/degrade.h"
#include "change_testlib.h"
#include "collect/bounds/sym.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"

static double k5(const char *name, void *arg)
{
	(void)arg;
	return strcmp(name, "k") == 0 ? 5 : strcmp(name, "n") == 0 ? 8 : NAN;
}

static double text_at(const char *text)
{
	struct bexpr *e;
	double v;

	assert_int_equal(bexpr_parse(text, &e), 0);
	v = bexpr_eval(e, k5, NULL);
	bexpr_free(e);
	return v;
}

static void test_bexpr(void **state)
{
	struct bexpr *e;
	const char *const *names;

	UNUSED(state);
	assert_true(text_at("6 + 4 × max(0, (k + -1))") == 22);
	assert_true(text_at("1 + max(k, 0)") == 6);
	assert_true(text_at("1 + log2(max(1, n))") == 4);
	assert_true(text_at("2 + log10(max(1, n))") == 2);
	assert_true(text_at("ceil(max(0, n) × max(0, (n + -1)) / 2)") == 28);
	assert_true(text_at("max(0, n)^2 + -3 × k") == 49);
	assert_true(text_at("min(n, k) - 1") == 4);
	assert_true(isinf(text_at("∞")));
	assert_int_equal(bexpr_parse("max(0, n) + y * 2", &e), 0);
	assert_int_equal(bexpr_names(e, &names), 2);
	assert_string_equal(names[0], "n");
	assert_string_equal(names[1], "y");
	bexpr_free(e);
	/* Loopus's failure is no expression. */
	assert_int_equal(bexpr_parse("FAILED to compute RF", &e), ERR_PARSE);
	assert_int_equal(bexpr_parse("max(0, n", &e), ERR_PARSE);
	assert_int_equal(bexpr_parse("sqrt(n)", &e), ERR_PARSE);
	assert_int_equal(bexpr_parse("", &e), ERR_PARSE);
}

static struct bclass cls(const char *text)
{
	struct bclass c;

	assert_true(bclass_parse(text, &c));
	return c;
}

static void test_bclass(void **state)
{
	struct bclass c;

	UNUSED(state);
	assert_int_equal(cls("O(n^2)").deg, 2);
	assert_int_equal(cls("O(n)").deg, 1);
	assert_int_equal(cls("O(log n)").log, 1);
	assert_int_equal(cls("O(n^1 log n)").log, 1);
	assert_true(cls("O(∞)").inf);
	assert_false(bclass_parse("O(x)", &c));
	assert_false(bclass_parse("n^2", &c));
	assert_true(bclass_cmp(cls("O(1)"), cls("O(log n)")) < 0);
	assert_true(bclass_cmp(cls("O(log n)"), cls("O(n^1)")) < 0);
	assert_true(bclass_cmp(cls("O(n^1)"), cls("O(n^1 log n)")) < 0);
	assert_true(bclass_cmp(cls("O(n^1 log n)"), cls("O(n^2)")) < 0);
	assert_true(bclass_cmp(cls("O(n^3)"), cls("O(∞)")) < 0);
	assert_int_equal(bclass_cmp(cls("O(n^1)"), cls("O(n)")), 0);
}

static char *printed(struct sym_ctx *x, const struct poly *p)
{
	struct buf b = BUF_INIT;

	sym_print(x, p, &b);
	return buf_detach(&b, NULL);
}

static char *class_of(struct sym_ctx *x, const struct poly *p)
{
	struct buf b = BUF_INIT;

	sym_class_print(sym_class_of(x, p), &b);
	return buf_detach(&b, NULL);
}

#define assert_printed(x, p, want)                                                                 \
	do {                                                                                       \
		char *s_ = printed((x), (p));                                                      \
		assert_string_equal(s_, (want));                                                   \
		free(s_);                                                                          \
	} while (0)

static void test_sym(void **state)
{
	const char *names[] = {"k", "n"};
	struct sym_ctx *x = sym_ctx_new(names, 2);
	struct lin k = lin_var(0), n = lin_var(1), km1 = lin_addc(&k, -1);
	const struct poly *m = sym_max0(x, sym_lin(x, &km1)), *p;
	char *c;

	UNUSED(state);
	/* The seed's spelling. */
	assert_printed(x, sym_addc(x, m, 1), "1 + max(0, (k + -1))");
	assert_printed(x, sym_add(x, sym_const(x, 6), sym_scale(x, m, 4)),
		       "6 + 4 × max(0, (k + -1))");
	/* max(1, 1 + max(0, k - 1)) is the second: its excess is >= 0. */
	assert_printed(x, sym_max(x, sym_const(x, 1), sym_addc(x, m, 1)), "1 + max(0, (k + -1))");
	/* max(0, max(0, k - 1) - 1) = max(0, k - 2). */
	assert_printed(x, sym_max0(x, sym_addc(x, m, -1)), "max(0, (k + -2))");
	/* A form known >= 0 needs no max. */
	assert_printed(x, sym_max0(x, sym_mul(x, m, m)), "max(0, (k + -1))^2");
	p = sym_mul(x, sym_max0(x, sym_lin(x, &n)), sym_log(x, 2, sym_lin(x, &n)));
	assert_printed(x, p, "max(0, n) × log2(max(1, n))");
	c = class_of(x, p);
	assert_string_equal(c, "O(n^1 log n)");
	free(c);
	c = class_of(x, sym_ceildiv(x, sym_mul(x, m, m), 2));
	assert_string_equal(c, "O(n^2)");
	free(c);
	c = class_of(x, sym_inf(x));
	assert_string_equal(c, "O(∞)");
	free(c);
	c = class_of(x, sym_const(x, 101));
	assert_string_equal(c, "O(1)");
	free(c);
	/* Exact division where every coefficient allows it. */
	assert_printed(x, sym_ceildiv(x, sym_scale(x, m, 4), 2), "2 × max(0, (k + -1))");
	assert_printed(x, sym_ceildiv(x, sym_const(x, 7), 2), "4");
	assert_true(sym_is_inf(sym_add(x, m, sym_inf(x))));
	{
		double v[2] = {5, 8};

		assert_true(sym_eval(x, sym_add(x, sym_const(x, 6), sym_scale(x, m, 4)), v) == 22);
	}
	/* The smaller class is the better bound, then the smaller value. */
	assert_true(sym_better(x, sym_log(x, 2, sym_lin(x, &n)), sym_lin(x, &n)) < 0);
	assert_true(sym_better(x, sym_addc(x, m, 1), sym_addc(x, m, 2)) < 0);
	sym_ctx_free(x);
}

/* A bounds profile with the given loops: {line, column, total, bound, class}. */
struct row {
	int line, col;
	bool total;
	const char *bound, *cls;
};

static struct profile *bounds_profile(const struct row *r, size_t n)
{
	struct profile *p = profile_new();

	p->type = xstrdup("bound");
	for (size_t i = 0; i < n; i++) {
		char *uid = xasprintf("{\"line\":%d,\"column\":%d,\"source\":\"s.c\","
				      "\"function\":\"f\"}",
				      r[i].line, r[i].col);
		struct attr a[] = {
			{.name = "uid", .kind = COL_JSON, .s = uid},
			{.name = "type",
			 .kind = COL_STR,
			 .s = r[i].total ? "total bound" : "local bound"},
			{.name = "bound", .kind = COL_STR, .s = r[i].bound},
			{.name = "time", .kind = COL_STR, .s = "0.0"},
			{.name = "class", .kind = COL_STR, .s = r[i].cls},
		};

		profile_res_add(p, profile_type_add(p, a, ARRAY_SIZE(a)));
		free(uid);
	}
	return p;
}

static void test_check_bounds(void **state)
{
	const struct row base[] = {
		{5, 9, false, "1 + max(0, n)", "O(n^1)"},
		{6, 8, false, "4 × max(0, n)", "O(n^1)"},
		{9, 10, false, "1 + max(0, m)", "O(n^1)"},
		{12, 13, false, "11", "O(1)"},
		{0, 4, true, "3 + 5 × max(0, n) + max(0, m)", "O(n^1)"},
	};
	/* Two lines added above the loops: they move, and stay the same loops. */
	const struct row target[] = {
		{7, 11, false, "1 + max(0, n)", "O(n^1)"},
		{8, 10, false, "max(0, n)^2", "O(n^2)"},
		{11, 12, false, "1 + 2 × max(0, m)", "O(n^1)"},
		{16, 17, false, "1 + max(0, n)", "O(n^1)"},
		{0, 4, true, "∞", "O(∞)"},
	};
	struct profile *a = bounds_profile(base, ARRAY_SIZE(base));
	struct profile *b = bounds_profile(target, ARRAY_SIZE(target));
	struct check_params cp;
	struct change_list l = {0};
	const struct change *c;

	UNUSED(state);
	check_params_default(&cp);
	assert_true(check_method_known("bounds"));
	assert_int_equal(degrade_compare(a, b, "bounds", &cp, &l), 0);
	assert_int_equal(l.n, 5);
	assert_int_equal(change_at(&l, "s.c:f:7:11")->cls, CH_NO_CHANGE);
	c = change_at(&l, "s.c:f:8:10");
	assert_int_equal(c->cls, CH_TOTAL_DEGRADATION);
	assert_string_equal(c->detail, "O(n^1) -> O(n^2)");
	/* The same class, twice the iterations: severe. */
	assert_int_equal(change_at(&l, "s.c:f:11:12")->cls, CH_SEVERE_DEGRADATION);
	assert_int_equal(change_at(&l, "s.c:f:16:17")->cls, CH_TOTAL_DEGRADATION);
	assert_int_equal(change_at(&l, "s.c:f:0:4")->cls, CH_TOTAL_DEGRADATION);
	change_list_free(&l);
	/* Back the other way: optimisations. */
	assert_int_equal(degrade_compare(b, a, "bounds", &cp, &l), 0);
	assert_int_equal(change_at(&l, "s.c:f:6:8")->cls, CH_TOTAL_OPTIMIZATION);
	assert_int_equal(change_at(&l, "s.c:f:9:10")->cls, CH_SEVERE_OPTIMIZATION);
	change_list_free(&l);
	profile_free(a);
	profile_free(b);
}

static void test_pairs(void **state)
{
	const struct row one[] = {{5, 9, false, "1", "O(1)"}, {20, 21, false, "1", "O(1)"}};
	const struct row two[] = {{20, 21, false, "1", "O(1)"},
				  {30, 31, false, "1", "O(1)"},
				  {40, 41, false, "1", "O(1)"}};
	const struct row moved[] = {{7, 11, false, "1", "O(1)"}, {22, 23, false, "1", "O(1)"}};
	struct profile *a = bounds_profile(one, 2), *b = bounds_profile(two, 3);
	struct profile *c = bounds_profile(moved, 2);
	struct bound_item *x, *y, *z;
	struct bound_pair *p;
	size_t nx, ny, nz, n;

	UNUSED(state);
	bound_items(a, &x, &nx);
	bound_items(b, &y, &ny);
	bound_items(c, &z, &nz);
	assert_int_equal(nx, 2);
	assert_int_equal(y[2].ordinal, 2);
	/* 20 is the same uid on both sides; 5 against 30 and 40: a loop came
	 * or went, which is not guessed. */
	n = bound_pairs(x, nx, y, ny, &p);
	assert_int_equal(n, 4);
	assert_int_equal(p[0].base->line, 5);
	assert_null(p[0].target);
	assert_int_equal(p[1].target->line, 20);
	free(p);
	/* Everything two lines down: the same loops, in order. */
	n = bound_pairs(x, nx, z, nz, &p);
	assert_int_equal(n, 2);
	assert_int_equal(p[0].target->line, 7);
	assert_int_equal(p[1].target->line, 22);
	free(p);
	bound_items_free(x, nx);
	bound_items_free(y, ny);
	bound_items_free(z, nz);
	profile_free(a);
	profile_free(b);
	profile_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bexpr), cmocka_unit_test(test_bclass),
		cmocka_unit_test(test_sym),   cmocka_unit_test(test_check_bounds),
		cmocka_unit_test(test_pairs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
