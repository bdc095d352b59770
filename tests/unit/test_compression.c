/* Compression detection and round trips. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"

static void test_detect(void **state)
{
	UNUSED(state);
	assert_int_equal(compression_detect("{\"a\": 1}", 8), COMP_NONE);
	assert_int_equal(compression_detect("", 0), COMP_NONE);
	assert_int_equal(compression_detect("\x28\xb5\x2f\xfd", 4), COMP_ZSTD);
	assert_int_equal(compression_detect("\x78\x9c", 2), COMP_ZLIB);
	assert_int_equal(compression_detect("\x78\x01", 2), COMP_ZLIB);
	assert_int_equal(compression_detect("\x78\x00", 2), COMP_NONE); /* bad FCHECK */
	assert_int_equal(compression_detect("\x1f\x8b", 2), COMP_ZLIB);
	assert_int_equal(compression_from_name("zstd"), COMP_ZSTD);
	assert_int_equal(compression_from_name("zlib"), COMP_ZLIB);
	assert_int_equal(compression_from_name("none"), COMP_NONE);
	assert_int_equal((int)compression_from_name("lz4"), -1);
}

static void test_roundtrip(void **state)
{
	enum compression comps[] = {COMP_NONE, COMP_ZLIB, COMP_ZSTD};
	struct buf in = BUF_INIT;
	size_t i, k;

	UNUSED(state);
	for (i = 0; i < 100000; i++)
		buf_addf(&in, "%zu,", i * 31 % 977);
	for (k = 0; k < ARRAY_SIZE(comps); k++) {
		struct buf z = BUF_INIT, out = BUF_INIT;

		assert_int_equal(compression_compress(comps[k], in.data, in.len, &z), 0);
		assert_int_equal(compression_detect(z.data, z.len), comps[k]);
		if (comps[k] != COMP_NONE)
			assert_true(z.len < in.len / 3);
		assert_int_equal(compression_decompress(z.data, z.len, &out), 0);
		assert_int_equal(out.len, in.len);
		assert_memory_equal(out.data, in.data, in.len);
		/* truncated input is an error with a message */
		if (comps[k] != COMP_NONE) {
			buf_reset(&out);
			assert_true(compression_decompress(z.data, z.len / 2, &out) < 0);
			assert_non_null(strstr(err_msg(), "truncated"));
		}
		buf_release(&z);
		buf_release(&out);
	}
	buf_release(&in);
}

static void test_empty(void **state)
{
	struct buf z = BUF_INIT, out = BUF_INIT;

	UNUSED(state);
	assert_int_equal(compression_compress(COMP_ZSTD, "", 0, &z), 0);
	assert_int_equal(compression_decompress(z.data, z.len, &out), 0);
	assert_int_equal(out.len, 0);
	buf_release(&z);
	buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
