/* Known allocations for tests/cli/t-collect_memory.sh: 100 malloc, 10
 * calloc, 10 realloc, 110 free; 10 blocks of 24 bytes (240 bytes) leak. */
#include <stdlib.h>

static void *keep[10];

int main(void)
{
	void *p[100];

	for (int i = 0; i < 100; i++)
		p[i] = malloc(16 + (size_t)i); /* the malloc line */
	for (int i = 0; i < 10; i++)
		p[i] = realloc(p[i], 1000);
	for (int i = 0; i < 100; i++)
		free(p[i]);
	for (int i = 0; i < 10; i++)
		free(calloc(4, 8));
	for (int i = 0; i < 10; i++)
		keep[i] = malloc(24);
	return keep[0] == NULL;
}
