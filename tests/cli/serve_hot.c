/* A program whose samples mostly fall in hot_spin (the serve tests). */
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

__attribute__((noinline)) void hot_spin(long n)
{
	for (long i = 0; i < n; i++)
		sink += (double)i * 0.5;
}

__attribute__((noinline)) void cold_spin(long n)
{
	for (long i = 0; i < n; i++)
		sink -= (double)i;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000000;

	hot_spin(n);
	cold_spin(n / 20);
	printf("%.0f\n", sink);
	return 0;
}
