#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/common.h"

static void test_grow_cap_policy(void **state)
{
	UNUSED(state);
	assert_int_equal(xgrow_cap(0, 0), 0);
	assert_int_equal(xgrow_cap(0, 1), 16);
	assert_int_equal(xgrow_cap(16, 16), 16);
	assert_int_equal(xgrow_cap(16, 17), 24);
	assert_int_equal(xgrow_cap(24, 100), 100);
	assert_int_equal(xgrow_cap(1000, 1001), 1500);
	/* Near the top the step saturates instead of wrapping round. */
	assert_true(xgrow_cap(SIZE_MAX - 10, SIZE_MAX - 9) >= SIZE_MAX - 9);
}

static void test_xgrow_keeps_items(void **state)
{
	uint64_t *a = NULL;
	size_t cap = 0, i;

	UNUSED(state);
	for (i = 0; i < 10000; i++) {
		XGROW(a, i + 1, cap);
		assert_true(cap >= i + 1);
		a[i] = i * 3;
	}
	for (i = 0; i < 10000; i++)
		assert_int_equal(a[i], i * 3);
	/* Room enough: neither the pointer nor the capacity moves. */
	{
		uint64_t *before = a;
		size_t c = cap;

		XGROW(a, cap, cap);
		assert_ptr_equal(a, before);
		assert_int_equal(cap, c);
	}
	free(a);
}

static void test_xresize_follows(void **state)
{
	int *key = NULL;
	double *val = NULL;
	size_t cap = 0, n;

	UNUSED(state);
	XGROW(key, 1, cap);
	XRESIZE(val, cap);
	for (n = 0; n < 500; n++) {
		if (n == cap) {
			XGROW(key, n + 1, cap);
			XRESIZE(val, cap);
		}
		key[n] = (int)n;
		val[n] = (double)n / 2;
	}
	for (n = 0; n < 500; n++) {
		assert_int_equal(key[n], (int)n);
		assert_true(val[n] == (double)n / 2);
	}
	free(key);
	free(val);
}

/* A size that would wrap round dies with the out-of-memory line, rather
 * than allocating a short array. */
static void test_overflow_dies(void **state)
{
	int status;
	pid_t pid;

	UNUSED(state);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		uint64_t *a = NULL;
		size_t cap = 0;

		close(2);
		XGROW(a, SIZE_MAX / 4, cap);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow_cap_policy),
		cmocka_unit_test(test_xgrow_keeps_items),
		cmocka_unit_test(test_xresize_follows),
		cmocka_unit_test(test_overflow_dies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
