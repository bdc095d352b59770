#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "util/common.h"
#include "util/strpool.h"

static void test_ids_are_dense_and_stable(void **state)
{
	struct strpool *sp = strpool_new();
	uint32_t a, b;

	UNUSED(state);
	assert_int_equal(strpool_intern_cstr(sp, ""), 0);
	a = strpool_intern_cstr(sp, "real");
	b = strpool_intern_cstr(sp, "user");
	assert_int_equal(a, 1);
	assert_int_equal(b, 2);
	assert_int_equal(strpool_intern_cstr(sp, "real"), a);
	assert_string_equal(strpool_get(sp, b), "user");
	assert_int_equal(strpool_len(sp, a), 4);
	assert_int_equal(strpool_find(sp, "user", 4), b);
	assert_int_equal(strpool_find(sp, "sys", 3), UINT32_MAX);
	assert_int_equal(strpool_count(sp), 3);
	strpool_free(sp);
}

static void test_many_and_long_strings(void **state)
{
	struct strpool *sp = strpool_new();
	char key[64], big[100000];
	uint32_t i, id_big;

	UNUSED(state);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	id_big = strpool_intern_cstr(sp, big);
	for (i = 0; i < 200000; i++) {
		snprintf(key, sizeof(key), "func_%u(int, char*)#0", i);
		assert_int_equal(strpool_intern_cstr(sp, key), i + 2);
	}
	/* Pointers handed out earlier stay valid as the pool grows. */
	assert_int_equal(strlen(strpool_get(sp, id_big)), sizeof(big) - 1);
	snprintf(key, sizeof(key), "func_%u(int, char*)#0", 123456u);
	assert_int_equal(strpool_find(sp, key, strlen(key)), 123456 + 2);
	assert_string_equal(strpool_get(sp, 123456 + 2), key);
	strpool_free(sp);
}

static void test_embedded_nul(void **state)
{
	struct strpool *sp = strpool_new();
	uint32_t a = strpool_intern(sp, "a\0b", 3), b = strpool_intern(sp, "a", 1);

	UNUSED(state);
	assert_int_not_equal(a, b);
	assert_int_equal(strpool_len(sp, a), 3);
	assert_memory_equal(strpool_get(sp, a), "a\0b", 3);
	strpool_free(sp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids_are_dense_and_stable),
		cmocka_unit_test(test_many_and_long_strings),
		cmocka_unit_test(test_embedded_nul),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
