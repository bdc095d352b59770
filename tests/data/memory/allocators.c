/* Each of the C library's other allocators, a known number of times from
 * main, each block freed but the last reallocarray's; prints
 * "SUBTYPE COUNT BYTES" for what it asked, as collect memory should count. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	void *p, *kept = NULL;
	int i;

	for (i = 0; i < 3; i++) {
		if (posix_memalign(&p, 64, 200) == 0)
			free(p);
	}
	printf("posix_memalign %d %d\n", 3, 3 * 200);
	for (i = 0; i < 4; i++)
		free(aligned_alloc(64, 256));
	printf("aligned_alloc %d %d\n", 4, 4 * 256);
	for (i = 0; i < 5; i++)
		free(memalign(128, 300));
	printf("memalign %d %d\n", 5, 5 * 300);
	for (i = 0; i < 6; i++)
		free(valloc(400));
	printf("valloc %d %d\n", 6, 6 * 400);
	for (i = 0; i < 7; i++)
		free(pvalloc(500));
	printf("pvalloc %d %d\n", 7, 7 * 500);
	/* Grows one block, then shrinks it to nothing: reallocarray frees. */
	for (i = 1; i <= 8; i++)
		kept = reallocarray(kept, (size_t)i, 10);
	kept = reallocarray(kept, 0, 10);
	kept = reallocarray(kept, 3, 10);
	printf("reallocarray %d %d\n", 10, 10 * (1 + 2 + 3 + 4 + 5 + 6 + 7 + 8) + 30);
	printf("free %d\n", 3 + 4 + 5 + 6 + 7);
	return kept == NULL;
}
