/* The JSON bodies of the server's requests (src/serve/request_body.h):
 * the one parser behind runs, sessions and project jobs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "serve/request_body.h"
#include "util/error.h"

static yajl_val parsed(const char *body)
{
	yajl_val v = body_parse(body, strlen(body));

	assert_non_null(v);
	return v;
}

static void refused(const char *body, size_t len, const char *says)
{
	assert_null(body_parse(body, len));
	if (!strstr(err_msg(), says))
		fail_msg("%s: %s", body, err_msg());
	err_clear();
}

static void test_parse(void **state)
{
	yajl_val v = parsed("{\"a\":1,\"b\":\"x\"}");

	(void)state;
	assert_non_null(body_member(v, "a"));
	assert_true(YAJL_IS_STRING(body_member(v, "b")));
	assert_null(body_member(v, "c"));
	yajl_tree_free(v);
	refused("{\"a\":", 5, "the body is not JSON");
	refused("[1,2]", 5, "the body must be a JSON object");
	refused("\"text\"", 6, "the body must be a JSON object");
	refused("{\"a\":1}\0{}", 10, "the body holds a NUL");
	/* Only @len bytes count: what follows is not read. */
	v = body_parse("{}garbage", 2);
	assert_non_null(v);
	yajl_tree_free(v);
	refused(NULL, 0, "the body is not JSON");
}

static void test_string(void **state)
{
	yajl_val v = parsed("{\"s\":\"abc\",\"e\":\"\",\"z\":null,\"n\":3}");
	char *s = (char *)"untouched";

	(void)state;
	assert_int_equal(body_string(v, "s", 3, &s), 0);
	assert_string_equal(s, "abc");
	free(s);
	assert_int_equal(body_string(v, "e", 3, &s), 0);
	assert_string_equal(s, "");
	free(s);
	assert_int_equal(body_string(v, "z", 3, &s), 0);
	assert_null(s);
	assert_int_equal(body_string(v, "absent", 3, &s), 0);
	assert_null(s);
	assert_int_equal(body_string(v, "s", 2, &s), ERR_PARSE);
	assert_null(s);
	assert_string_equal(err_msg(), "s is longer than 2 bytes");
	assert_int_equal(body_string(v, "n", 9, &s), ERR_PARSE);
	assert_string_equal(err_msg(), "n must be a string");
	err_clear();
	yajl_tree_free(v);
}

static void test_number(void **state)
{
	yajl_val v = parsed("{\"i\":12,\"f\":2.5,\"s\":\" 7\",\"e\":\"\",\"z\":null,"
			    "\"bad\":\"7x\",\"t\":true,\"inf\":\"inf\"}");
	double d = -1;

	(void)state;
	assert_int_equal(body_number(v, "i", &d), 1);
	assert_true(d == 12);
	assert_int_equal(body_number(v, "f", &d), 1);
	assert_true(d == 2.5);
	/* A form sends its numbers as strings. */
	assert_int_equal(body_number(v, "s", &d), 1);
	assert_true(d == 7);
	/* Absent, null or an empty field: untouched. */
	d = -1;
	assert_int_equal(body_number(v, "e", &d), 0);
	assert_int_equal(body_number(v, "z", &d), 0);
	assert_int_equal(body_number(v, "absent", &d), 0);
	assert_true(d == -1);
	assert_int_equal(body_number(v, "bad", &d), ERR_PARSE);
	assert_string_equal(err_msg(), "bad must be a number");
	assert_int_equal(body_number(v, "t", &d), ERR_PARSE);
	assert_string_equal(err_msg(), "t must be a number");
	err_clear();
	/* The range, finite ones included, is the caller's to check. */
	assert_int_equal(body_number(v, "inf", &d), 1);
	yajl_tree_free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_string),
		cmocka_unit_test(test_number),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
