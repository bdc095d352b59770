/*
 * deep N: rec() recursing N calls deep, once, for the dynamic mode's
 * pairing of returns with entries beyond the kernel's 64 probed returns.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long rec(long n)
{
	long r;

	if (n == 0)
		return 0;
	r = rec(n - 1) + 1;
	__asm__ volatile("");
	return r;
}

int main(int argc, char **argv)
{
	printf("%ld\n", rec(argc > 1 ? atol(argv[1]) : 10));
	return 0;
}
