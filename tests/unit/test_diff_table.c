/* The table of `veles diff` as data (view/diff_table.h): medians per
 * location, the relative change, locations only one side has, the order
 * by the size of the change either way; values worked out by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "profile/profile.h"
#include "profile_testlib.h"
#include "util/common.h"
#include "util/error.h"
#include "view/diff_table.h"

#define BASE                                                                                       \
	"{\"header\":{\"type\":\"time\",\"units\":{\"time\":\"s\"}},\"global\":{\"resources\":["   \
	"{\"uid\":\"a\",\"type\":\"time\",\"amount\":1},{\"uid\":\"a\",\"type\":\"time\","         \
	"\"amount\":3},"                                                                           \
	"{\"uid\":\"a\",\"type\":\"time\",\"amount\":2},{\"uid\":\"b\",\"type\":\"time\","         \
	"\"amount\":10},"                                                                          \
	"{\"uid\":\"gone\",\"type\":\"time\",\"amount\":5}]}}"
#define TARGET                                                                                     \
	"{\"header\":{\"type\":\"time\",\"units\":{\"time\":\"s\"}},\"global\":{\"resources\":["   \
	"{\"uid\":\"a\",\"type\":\"time\",\"amount\":2.2},{\"uid\":\"b\",\"type\":\"time\","       \
	"\"amount\":5},"                                                                           \
	"{\"uid\":\"new\",\"type\":\"time\",\"amount\":7}]}}"

static void test_rows(void **state)
{
	struct profile *a = load_str(BASE), *b = load_str(TARGET);
	struct diff_table t;

	UNUSED(state);
	assert_int_equal(diff_table_build(a, b, NULL, &t), 0);
	assert_int_equal(t.n, 4);
	/* b halved (-50%) is a bigger change than a's +10%. */
	assert_string_equal(t.rows[0].name, "b");
	assert_true(fabs(t.rows[0].rel + 0.5) < 1e-12);
	assert_string_equal(t.rows[1].name, "a");
	assert_true(fabs(t.rows[1].base - 2) < 1e-12);
	assert_true(fabs(t.rows[1].rel - 0.1) < 1e-12);
	/* Locations one side lacks: no change, last, by name. */
	assert_string_equal(t.rows[2].name, "gone");
	assert_true(isnan(t.rows[2].target) && isnan(t.rows[2].rel));
	assert_string_equal(t.rows[3].name, "new");
	assert_true(isnan(t.rows[3].base) && t.rows[3].target == 7);
	diff_table_free(&t);
	profile_free(a);
	profile_free(b);
}

static void test_no_values(void **state)
{
	struct profile *a = load_str(BASE), *b = load_str(TARGET);
	struct diff_table t;

	UNUSED(state);
	assert_int_equal(diff_table_build(a, b, "nosuch", &t), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "'nosuch'"));
	assert_int_equal(t.n, 0);
	err_clear();
	profile_free(a);
	profile_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_no_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
