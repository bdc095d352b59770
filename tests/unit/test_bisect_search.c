/*
 * analyze/bisect_search: the search on made-up series of versions, slow
 * from a known one on: it finds that one, asks only about O(log n)
 * versions, stops at one that cannot be told, and passes errors on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analyze/bisect_search.h"
#include "util/common.h"

struct series {
	size_t n, first_slow; /* versions first_slow.. are slow */
	size_t unsure;	      /* this version cannot be told; n: none */
	size_t fail_at;	      /* asking about it fails; n: never */
	size_t asked, last_left;
	int asked_twice;
	unsigned char seen[64];
};

static int classify(void *arg, size_t i, size_t left, int *verdict)
{
	struct series *s = arg;

	assert_true(i < s->n);
	s->asked_twice |= s->seen[i];
	s->seen[i] = 1;
	s->asked++;
	s->last_left = left;
	if (i == s->fail_at)
		return -5;
	*verdict = i == s->unsure ? -1 : i >= s->first_slow;
	return 0;
}

static void test_finds_first_slow(void **state)
{
	UNUSED(state);
	for (size_t n = 1; n <= 40; n++) {
		for (size_t f = 0; f < n; f++) {
			struct series s = {.n = n, .first_slow = f, .unsure = n, .fail_at = n};
			size_t first = 99, bound = 0;

			assert_int_equal(bisect_search(n, classify, &s, &first), 0);
			assert_int_equal(first, f);
			while (((size_t)1 << bound) < n)
				bound++;
			assert_true(s.asked <= bound);
			assert_false(s.asked_twice);
		}
	}
}

static void test_unsure_and_error(void **state)
{
	struct series s = {.n = 16, .first_slow = 11, .unsure = 7, .fail_at = 16};
	size_t first = 0;

	UNUSED(state);
	/* The first asked is the middle, 7: it cannot be told. */
	assert_int_equal(bisect_search(16, classify, &s, &first), 1);
	assert_int_equal(first, 7);
	assert_int_equal(s.last_left, 16);

	s = (struct series){.n = 16, .first_slow = 11, .unsure = 16, .fail_at = 11};
	assert_int_equal(bisect_search(16, classify, &s, &first), -5);
}

static void test_one_version(void **state)
{
	struct series s = {.n = 1, .first_slow = 0, .unsure = 1, .fail_at = 1};
	size_t first = 5;

	UNUSED(state);
	/* Only bad itself: nothing to ask. */
	assert_int_equal(bisect_search(1, classify, &s, &first), 0);
	assert_int_equal(first, 0);
	assert_int_equal(s.asked, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_finds_first_slow),
		cmocka_unit_test(test_unsure_and_error),
		cmocka_unit_test(test_one_version),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
