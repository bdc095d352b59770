/* 50 allocations in before_crash(), then a SIGSEGV. */
#include <stdlib.h>

static void *keep[50];

static void before_crash(void)
{
	for (int i = 0; i < 50; i++)
		keep[i] = malloc(64);
}

int main(int argc, char **argv)
{
	volatile int *null = argc > 5 ? (int *)argv : NULL;

	before_crash();
	*null = 1;
	return 0;
}
