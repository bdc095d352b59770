/* The point two bounds of one class are compared at
 * (analyze/bound_expr.h, bexpr_at_probe), which check's bounds method
 * and diff's bounds table share. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/bound_expr.h"
#include "util/error.h"

static void test_at_probe(void **state)
{
	double n = bexpr_at_probe("n"), m = bexpr_at_probe("len");

	(void)state;
	assert_true(n >= 1000 && n < 1007);
	assert_true(bexpr_at_probe("n + 1") == n + 1);
	assert_true(bexpr_at_probe("2 × n") == 2 * n);
	assert_true(bexpr_at_probe("max(0, n)^2") == n * n);
	/* Names of other lengths lie apart, so that len - n is not taken
	 * for zero. */
	assert_true(m != n);
	assert_true(bexpr_at_probe("len - n") == m - n);
	assert_true(bexpr_at_probe("7") == 7);
	assert_true(isinf(bexpr_at_probe("∞")));
}

static void test_unparsed(void **state)
{
	(void)state;
	/* NaN, and no error left behind for the next caller. */
	err_set(ERR_IO, "before");
	err_clear();
	assert_true(isnan(bexpr_at_probe("FAILED to compute RF")));
	assert_string_equal(err_msg(), "");
	assert_true(isnan(bexpr_at_probe("")));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_at_probe),
		cmocka_unit_test(test_unparsed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
