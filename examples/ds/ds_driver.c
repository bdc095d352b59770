/*
 * ds_driver [-t THREADS] [-f] [-m] N [SEARCHES]: exercises the library of ds.h
 * with N keys, so the trace collector has calls to count and to time.
 *
 * One workload makes exactly these calls of the library:
 *   SLList_init 2 (one direct, one inside SLList_destroy), SLList_insert N,
 *   SLList_search SEARCHES (default N; every other key is missing, so that
 *   search walks the whole list; with -m every key is), SLList_destroy 1,
 *   BTree_init 2, BTree_insert N, BTree_search SEARCHES, BTree_destroy 1,
 *   insertion_sort 1.
 * The main thread runs one workload; -t T runs one more on each of T
 * threads; -f forks once first, and the child runs its own workload(s) the
 * same way before the parent's. Deterministic: a fixed-seed generator.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ds.h"

struct workload {
	long n, searches;
	int all_missing; /* -m */
	long found;	 /* of the list searches, for the output */
};

static unsigned next_key(unsigned *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state;
}

static void *run_workload(void *arg)
{
	struct workload *w = arg;
	unsigned state = 2463534242u;
	int *keys = malloc((size_t)(w->n ? w->n : 1) * sizeof(*keys));
	SLList list;
	BTree tree;

	if (!keys)
		abort();
	SLList_init(&list);
	BTree_init(&tree);
	for (long i = 0; i < w->n; i++) {
		/* Even keys only: an odd key is never found. */
		keys[i] = (int)(next_key(&state) % 1000000) * 2;
		SLList_insert(&list, keys[i]);
		BTree_insert(&tree, keys[i]);
	}
	for (long i = 0; i < w->searches; i++) {
		int key = w->n && i % 2 == 0 && !w->all_missing ? keys[(i / 2) % w->n]
								: 2 * (int)i + 1;

		w->found += SLList_search(&list, key) != NULL;
		BTree_search(&tree, key);
	}
	insertion_sort(keys, (size_t)w->n);
	SLList_destroy(&list);
	BTree_destroy(&tree);
	free(keys);
	return NULL;
}

static long number(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end || v < 0) {
		fprintf(stderr, "ds_driver: '%s' is not a count\n", s);
		exit(2);
	}
	return v;
}

/* The main thread's workload, then one on each of @threads threads. */
static long run_all(long n, long searches, long threads, int all_missing)
{
	pthread_t *tid = calloc((size_t)threads + 1, sizeof(*tid));
	struct workload *w = calloc((size_t)threads + 1, sizeof(*w));
	long found = 0;

	if (!tid || !w)
		abort();
	for (long i = 0; i <= threads; i++)
		w[i] = (struct workload){.n = n, .searches = searches, .all_missing = all_missing};
	run_workload(&w[0]);
	for (long i = 1; i <= threads; i++)
		if (pthread_create(&tid[i], NULL, run_workload, &w[i]) != 0)
			abort();
	for (long i = 1; i <= threads; i++)
		pthread_join(tid[i], NULL);
	for (long i = 0; i <= threads; i++)
		found += w[i].found;
	free(tid);
	free(w);
	return found;
}

int main(int argc, char **argv)
{
	long threads = 0, n, searches;
	int opt, forked = 0, all_missing = 0;
	pid_t child = -1;

	while ((opt = getopt(argc, argv, "t:fm")) != -1) {
		if (opt == 't')
			threads = number(optarg);
		else if (opt == 'f')
			forked = 1;
		else if (opt == 'm')
			all_missing = 1;
		else
			return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: ds_driver [-t THREADS] [-f] [-m] N [SEARCHES]\n");
		return 2;
	}
	n = number(argv[optind]);
	searches = optind + 1 < argc ? number(argv[optind + 1]) : n;
	if (forked && (child = fork()) < 0)
		return 1;
	if (child > 0)
		waitpid(child, NULL, 0);
	printf("%s: found %ld\n", child == 0 ? "child" : "main",
	       run_all(n, searches, threads, all_missing));
	return 0;
}
