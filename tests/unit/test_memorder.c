/* The order of memory events across threads (collect/memory/order.c),
 * on events made up here: within a clock tick a release follows the
 * allocation of its block, whatever thread made either. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "collect/memory/memread.h"
#include "collect/memory/order.h"
#include "memformat.h"
#include "util/common.h"

#define EV(ns_, tid_, kind_, addr_)                                                                \
	{                                                                                          \
		.ns = ns_, .tid = tid_, .kind = kind_, .addr = addr_                               \
	}

/* The file's events in the order mem_order puts them, as indices. */
static void expect_order(struct mem_event *ev, size_t n, const uint32_t *want)
{
	struct mem_file f = {.ev = ev, .nev = n};
	size_t got;
	struct mem_ref *r = mem_order(&f, 1, &got);

	assert_int_equal(got, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(r[i].idx, want[i]);
	free(r);
}

/* A consumer's buffer written before the producer's, in one tick. */
static void test_free_waits_for_malloc(void **state)
{
	struct mem_event ev[] = {
		EV(5, 2, VMEM_FREE, 0x100),
		EV(5, 2, VMEM_FREE, 0x200),
		EV(5, 1, VMEM_MALLOC, 0x100),
		EV(5, 1, VMEM_MALLOC, 0x200),
	};
	const uint32_t want[] = {2, 0, 3, 1};

	(void)state;
	expect_order(ev, ARRAY_SIZE(ev), want);
}

/* An address allocated again by another thread: after its release. */
static void test_malloc_waits_for_free(void **state)
{
	struct mem_event ev[] = {
		EV(0, 1, VMEM_MALLOC, 0x100),
		EV(5, 2, VMEM_MALLOC, 0x100),
		EV(5, 1, VMEM_FREE, 0x100),
	};
	const uint32_t want[] = {0, 2, 1};

	(void)state;
	expect_order(ev, ARRAY_SIZE(ev), want);
}

/* A realloc's old block must be live, from any thread. */
static void test_realloc_old(void **state)
{
	struct mem_event ev[] = {
		{.ns = 5, .tid = 2, .kind = VMEM_REALLOC, .addr = 0x300, .old = 0x100},
		EV(5, 1, VMEM_MALLOC, 0x100),
	};
	const uint32_t want[] = {1, 0};

	(void)state;
	expect_order(ev, ARRAY_SIZE(ev), want);
}

/* A release of a block never seen goes once its tick is over, and its
 * thread's later events after it. */
static void test_unknown_block(void **state)
{
	struct mem_event ev[] = {
		EV(5, 2, VMEM_FREE, 0x900),
		EV(5, 2, VMEM_MALLOC, 0x100),
		EV(5, 1, VMEM_MALLOC, 0x200),
		EV(9, 1, VMEM_MALLOC, 0x300),
	};
	const uint32_t want[] = {2, 0, 1, 3};

	(void)state;
	expect_order(ev, ARRAY_SIZE(ev), want);
}

/* One thread: its own order, however odd. */
static void test_one_thread(void **state)
{
	struct mem_event ev[] = {
		EV(5, 1, VMEM_FREE, 0x100),
		EV(5, 1, VMEM_MALLOC, 0x100),
		EV(7, 1, VMEM_MALLOC, 0x100),
	};
	const uint32_t want[] = {0, 1, 2};

	(void)state;
	expect_order(ev, ARRAY_SIZE(ev), want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_free_waits_for_malloc),
		cmocka_unit_test(test_malloc_waits_for_free),
		cmocka_unit_test(test_realloc_old),
		cmocka_unit_test(test_unknown_block),
		cmocka_unit_test(test_one_thread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
