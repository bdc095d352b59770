#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/common.h"
#include "util/human.h"

static const char *fmt(double v, double ref, enum human_kind k, int prec)
{
	static char out[64];

	return human_num(out, sizeof(out), v, ref, k, prec);
}

static void test_bytes(void **state)
{
	UNUSED(state);
	assert_string_equal(fmt(0, 0, HUMAN_BYTES, 2), "0 B");
	assert_string_equal(fmt(240, 240, HUMAN_BYTES, 2), "240 B");
	assert_string_equal(fmt(999, 999, HUMAN_BYTES, 1), "999 B");
	assert_string_equal(fmt(1000, 1000, HUMAN_BYTES, 1), "1.0 kB");
	assert_string_equal(fmt(17110, 17110, HUMAN_BYTES, 2), "17.11 kB");
	assert_string_equal(fmt(3.5e6, 3.5e6, HUMAN_BYTES, 1), "3.5 MB");
	assert_string_equal(fmt(2e9, 2e9, HUMAN_BYTES, 1), "2.0 GB");
	/* TB is the last unit: larger values stay in it. */
	assert_string_equal(fmt(5e15, 5e15, HUMAN_BYTES, 0), "5000 TB");
}

/* hyperfine's units, chosen by the reference (a column's mean). */
static void test_seconds(void **state)
{
	UNUSED(state);
	assert_string_equal(fmt(0.0123, 0.0123, HUMAN_SECONDS, 1), "12.3 ms");
	assert_string_equal(fmt(0.00034, 0.00034, HUMAN_SECONDS, 1), "340.0 \xc2\xb5s");
	assert_string_equal(fmt(2.5, 2.5, HUMAN_SECONDS, 3), "2.500 s");
	assert_string_equal(fmt(0, 0, HUMAN_SECONDS, 1), "0.0 \xc2\xb5s");
	/* A stddev printed in its mean's unit, not its own. */
	assert_string_equal(fmt(0.0002, 0.0123, HUMAN_SECONDS, 1), "0.2 ms");
	assert_string_equal(fmt(1.5, 0.5, HUMAN_SECONDS, 1), "1500.0 ms");
}

static void test_counts(void **state)
{
	UNUSED(state);
	assert_string_equal(fmt(812, 812, HUMAN_COUNT, -3), "812");
	assert_string_equal(fmt(9999, 9999, HUMAN_COUNT, -3), "9999");
	assert_string_equal(fmt(12345, 12345, HUMAN_COUNT, -3), "12.3k");
	assert_string_equal(fmt(123456, 123456, HUMAN_COUNT, -3), "123k");
	assert_string_equal(fmt(1234567, 1234567, HUMAN_COUNT, -3), "1.23M");
	assert_string_equal(fmt(4.2e9, 4.2e9, HUMAN_COUNT, 1), "4.2G");
}

static void test_short_buffer(void **state)
{
	char out[6];

	UNUSED(state);
	memset(out, 'x', sizeof(out));
	human_num(out, sizeof(out), 17110, 17110, HUMAN_BYTES, 2);
	assert_string_equal(out, "17.11");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_short_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
