/*
 * ds_usdt ROUNDS STEP: the ds.h list searched over growing lengths, marked
 * with USDT probes (<sys/sdt.h>) for `veles collect trace -u`.
 *
 * Round r (1..ROUNDS) grows the list to r*STEP keys and then fires:
 *   ds:search(length) ... ds:search_end   around one missing-key search,
 *                                          so the pair's time is linear in
 *                                          its first argument;
 *   ds:sort_begin(n) ... ds:sort_end       around an insertion sort of n keys;
 *   ds:grow_go ... ds:grow_done            around the round's inserts (named
 *                                          apart: paired only with -u A#B);
 *   ds:round(r)                            once a round (timed hit to hit),
 *                                          only while its semaphore is set.
 * It prints how many rounds saw ds:round enabled.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

#include "ds.h"

/* The semaphores the kernel counts up while a probe is attached. */
#define SEMAPHORE(name) unsigned short ds_##name##_semaphore __attribute__((section(".probes")))
SEMAPHORE(search);
SEMAPHORE(search_end);
SEMAPHORE(sort_begin);
SEMAPHORE(sort_end);
SEMAPHORE(grow_go);
SEMAPHORE(grow_done);
SEMAPHORE(round);

static long number(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end || v <= 0) {
		fprintf(stderr, "ds_usdt: '%s' is not a positive count\n", s);
		exit(2);
	}
	return v;
}

static void sort_copy(const SLList *list)
{
	int *v = malloc(list->size * sizeof(*v));
	size_t n = 0;

	if (!v)
		abort();
	for (const SLLelem *e = list->head; e; e = e->next)
		v[n++] = e->key;
	DTRACE_PROBE1(ds, sort_begin, n);
	insertion_sort(v, n);
	DTRACE_PROBE(ds, sort_end);
	free(v);
}

int main(int argc, char **argv)
{
	long rounds, step, enabled = 0, key = 0;
	SLList list;

	if (argc != 3) {
		fprintf(stderr, "usage: ds_usdt ROUNDS STEP\n");
		return 2;
	}
	rounds = number(argv[1]);
	step = number(argv[2]);
	SLList_init(&list);
	for (long r = 1; r <= rounds; r++) {
		DTRACE_PROBE(ds, grow_go);
		for (long i = 0; i < step; i++, key += 2)
			SLList_insert(&list, (int)key);
		DTRACE_PROBE(ds, grow_done);
		DTRACE_PROBE1(ds, search, list.size);
		SLList_search(&list, -1);
		DTRACE_PROBE(ds, search_end);
		sort_copy(&list);
		if (ds_round_semaphore) {
			enabled++;
			DTRACE_PROBE1(ds, round, r);
		}
	}
	SLList_destroy(&list);
	printf("ds_usdt: ds:round enabled in %ld of %ld rounds\n", enabled, rounds);
	return 0;
}
