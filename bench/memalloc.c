/*
 * The malloc/free microbenchmark of bench/memory.sh: N allocations (default
 * 5,000,000) of 8 to 4103 bytes, skewed small as real programs are, from
 * three call sites at different depths. Each allocation replaces a random
 * one of 4096 retained blocks (freeing it), so the heap holds a working
 * set the whole time and every block is freed by the end but those kept.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define KEEP 4096

static void *slot[KEEP];
static uint64_t rng = 88172645463325252u;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static size_t size_of(uint64_t r)
{
	/* Mostly small: 8..71 bytes three times in four, up to 4103 otherwise. */
	return (r & 3) ? 8 + (r >> 2) % 64 : 8 + (r >> 2) % 4096;
}

__attribute__((noinline)) static void replace(uint64_t r)
{
	size_t i = (r >> 20) % KEEP;

	free(slot[i]);
	slot[i] = malloc(size_of(r));
	if (slot[i])
		*(char *)slot[i] = 1;
}

__attribute__((noinline)) static void nested(uint64_t r)
{
	replace(r);
}

__attribute__((noinline)) static void deeper(uint64_t r)
{
	nested(r);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 5000000;

	for (long k = 0; k < n; k++) {
		uint64_t r = next();

		if (k % 3 == 0)
			replace(r);
		else if (k % 3 == 1)
			nested(r);
		else
			deeper(r);
	}
	/* Half the working set stays: leaks for the tools to find. */
	for (int i = 0; i < KEEP; i += 2)
		free(slot[i]);
	printf("%ld allocations\n", n);
	return 0;
}
