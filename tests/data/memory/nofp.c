/* Built -O2 -fomit-frame-pointer: inner() allocates 5 blocks of 64 bytes
 * with malloc and 5 of 32 with calloc under middle() and outer(), which do
 * work after each call so that no call becomes a jump. */
#include <stdio.h>
#include <stdlib.h>

static void *keep[5], *zeroed[5];

__attribute__((noinline)) static int inner(int i)
{
	keep[i] = malloc(64);
	zeroed[i] = calloc(2, 16);
	return keep[i] != NULL && zeroed[i] != NULL;
}

__attribute__((noinline)) static int middle(int i)
{
	int r = inner(i);

	return r + i * 3;
}

__attribute__((noinline)) static int outer(int i)
{
	int r = middle(i);

	return r ^ (i + 7);
}

int main(void)
{
	int sum = 0;

	for (int i = 0; i < 5; i++)
		sum += outer(i);
	printf("%d\n", sum);
	return 0;
}
