#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "util/buf.h"
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

/* A profile's values: the ladder climbed by the value itself. */
static const char *value(double v, const char *unit)
{
	static char out[64];
	struct buf b = BUF_INIT;

	human_value(&b, v, unit);
	snprintf(out, sizeof(out), "%s", buf_str(&b));
	buf_release(&b);
	return out;
}

static void test_value_rungs(void **state)
{
	UNUSED(state);
	/* Each rung of the time ladder from its first value, ns to s. */
	assert_string_equal(value(999, "ns"), "999 ns");
	assert_string_equal(value(1000, "ns"), "1 \xc2\xb5s");
	assert_string_equal(value(999.9, "us"), "999.9 \xc2\xb5s");
	assert_string_equal(value(1000, "us"), "1 ms");
	assert_string_equal(value(1, "s"), "1 s");
	assert_string_equal(value(7200, "sec"), "7200 s"); /* no rung past s */
	assert_string_equal(value(-2500, "us"), "-2.5 ms");
	/* Bytes in powers of 1024: B below 1 KiB, whole. */
	assert_string_equal(value(1023, "B"), "1,023 B");
	assert_string_equal(value(1024, "B"), "1 KiB");
	assert_string_equal(value(0.5, "KiB"), "512 B");
	assert_string_equal(value(5.0 * 1024 * 1024 * 1024 * 1024 * 1024, "B"), "5120 TiB");
	/* A unit of no family stays as it is. */
	assert_string_equal(value(1e6, "instructions"), "1,000,000 instructions");
}

static void test_percent(void **state)
{
	struct buf b = BUF_INIT;

	UNUSED(state);
	human_percent(&b, 0.004, 1);
	buf_addc(&b, ' ');
	human_percent(&b, -0.5, 1);
	buf_addc(&b, ' ');
	human_percent(&b, 42.04, 1);
	buf_addc(&b, ' ');
	human_percent(&b, 0, 1);
	assert_string_equal(buf_str(&b), "+<0.01% -0.50% +42.0% 0%");
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes),	    cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_counts),	    cmocka_unit_test(test_short_buffer),
		cmocka_unit_test(test_value_rungs), cmocka_unit_test(test_percent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
