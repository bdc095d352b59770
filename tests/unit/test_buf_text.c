/* Small text helpers several modules share: hex_digit (util/common.h),
 * buf_add_csv (util/buf.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/buf.h"
#include "util/common.h"

static void test_hex_digit(void **state)
{
	const char *digits = "0123456789abcdef", *upper = "ABCDEF";

	UNUSED(state);
	for (int i = 0; i < 16; i++)
		assert_int_equal(hex_digit(digits[i]), i);
	for (int i = 0; i < 6; i++)
		assert_int_equal(hex_digit(upper[i]), 10 + i);
	assert_int_equal(hex_digit('g'), -1);
	assert_int_equal(hex_digit('G'), -1);
	assert_int_equal(hex_digit('/'), -1);
	assert_int_equal(hex_digit(':'), -1);
	assert_int_equal(hex_digit('@'), -1);
	assert_int_equal(hex_digit('`'), -1);
	assert_int_equal(hex_digit('\0'), -1);
	assert_int_equal(hex_digit((char)0xe1), -1);
}

static void csv_is(const char *s, const char *want)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "x,");
	buf_add_csv(&b, s);
	assert_string_equal(buf_str(&b), want);
	buf_release(&b);
}

static void test_csv(void **state)
{
	UNUSED(state);
	csv_is("plain", "x,\"plain\"");
	csv_is("", "x,\"\"");
	csv_is("a,b", "x,\"a,b\"");
	csv_is("say \"hi\"", "x,\"say \"\"hi\"\"\"");
	csv_is("\"", "x,\"\"\"\"");
	csv_is("two\nlines", "x,\"two\nlines\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hex_digit),
		cmocka_unit_test(test_csv),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
