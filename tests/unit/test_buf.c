#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/buf.h"
#include "util/common.h"

static void test_append_and_format(void **state)
{
	struct buf b = BUF_INIT;
	size_t len;
	char *s;
	int i;

	UNUSED(state);
	assert_string_equal(buf_str(&b), "");
	/* An empty piece may come as NULL (UBSan: memcpy's null argument). */
	buf_add(&b, NULL, 0);
	assert_int_equal(b.len, 0);
	buf_adds(&b, "abc");
	buf_addc(&b, '-');
	for (i = 0; i < 1000; i++)
		buf_addf(&b, "%d,", i);
	assert_int_equal(strncmp(b.data, "abc-0,1,2,", 10), 0);
	assert_int_equal(b.data[b.len], '\0');
	assert_string_equal(b.data + b.len - 4, "999,");
	s = buf_detach(&b, &len);
	assert_int_equal(len, strlen(s));
	assert_null(b.data);
	free(s);
}

static void test_json_string_escapes(void **state)
{
	struct buf b = BUF_INIT;

	UNUSED(state);
	buf_add_json_str(&b, "a\"b\\c\nd\te\x01 é", strlen("a\"b\\c\nd\te\x01 é"));
	assert_string_equal(buf_str(&b), "\"a\\\"b\\\\c\\nd\\te\\u0001 é\"");
	buf_reset(&b);
	buf_add_json_str(&b, "", 0);
	assert_string_equal(buf_str(&b), "\"\"");
	buf_release(&b);
}

static void test_error_messages(void **state)
{
	UNUSED(state);
	assert_int_equal(err_set(ERR_IO, "cannot open %s", "x"), ERR_IO);
	assert_string_equal(err_msg(), "cannot open x");
	err_prefix(ERR_IO, "profile %d", 3);
	assert_string_equal(err_msg(), "profile 3: cannot open x");
	err_clear();
	assert_string_equal(err_msg(), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_append_and_format),
		cmocka_unit_test(test_json_string_escapes),
		cmocka_unit_test(test_error_messages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
