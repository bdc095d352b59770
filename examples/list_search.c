/*
 * list_search N [SEARCHES]: builds a singly linked list of N pseudo-random
 * keys and looks up SEARCHES keys in it (default 1000), half of them
 * present. The demo and the docs profile two versions of it:
 *
 *   cc -O2 -o list_search list_search.c            # version 1
 *   cc -O2 -DSLOW=1 -o list_search list_search.c   # version 2, measurably slower
 *
 * Version 2 is the classic regression of a length check inside the loop:
 * every lookup first counts the list, so each search walks it twice.
 * Deterministic: a fixed-seed generator, same output every run.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef SLOW
#define SLOW 0
#endif

struct node {
	uint32_t key;
	struct node *next;
};

static uint32_t rng_state = 12345;

/* A 32-bit xorshift: deterministic and the same on every libc. */
static uint32_t rng_next(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

static size_t list_length(const struct node *n)
{
	size_t len = 0;

	for (; n; n = n->next)
		len++;
	return len;
}

static const struct node *list_find(const struct node *head, uint32_t key)
{
#if SLOW
	/* "Is it empty?" asked the expensive way: a whole walk per lookup. */
	if (list_length(head) == 0)
		return NULL;
#endif
	for (; head; head = head->next)
		if (head->key == key)
			return head;
	return NULL;
}

static long parse_count(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end || v < 0) {
		fprintf(stderr, "list_search: %s must be a whole number, not '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? parse_count(argv[1], "N") : 100000;
	long searches = argc > 2 ? parse_count(argv[2], "SEARCHES") : 1000;
	struct node *head = NULL, *tail = NULL;
	uint32_t *keys = malloc((size_t)(n ? n : 1) * sizeof(*keys));
	long found = 0;

	if (!keys)
		return 1;
	for (long i = 0; i < n; i++) {
		struct node *node = malloc(sizeof(*node));

		if (!node)
			return 1;
		node->key = keys[i] = rng_next();
		node->next = NULL;
		if (tail)
			tail->next = node;
		else
			head = node;
		tail = node;
	}
	for (long i = 0; i < searches; i++) {
		/* Even lookups hit a key in the list; odd ones most likely miss. */
		uint32_t key = (i % 2 == 0 && n) ? keys[rng_next() % (uint32_t)n] : rng_next();

		found += list_find(head, key) != NULL;
	}
	printf("list of %ld: found %ld of %ld keys (length %zu)\n", n, found, searches,
	       list_length(head));
	while (head) {
		struct node *next = head->next;

		free(head);
		head = next;
	}
	free(keys);
	return 0;
}
