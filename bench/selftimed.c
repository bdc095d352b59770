/* selftimed [MILLIONS]: a CPU-bound loop a few calls deep that times its own
 * work and prints it in nanoseconds, so a recorder's cost is measured apart
 * from the recorder's own start-up and exit. Built by bench/record.sh. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void leaf(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}

/* Call chains of some depth make -g's stack copies cost what they would in
 * a real program. */
__attribute__((noinline)) static void nest(int depth, unsigned long n)
{
	if (depth == 0)
		leaf(n);
	else
		nest(depth - 1, n);
	sink++;
}

int main(int argc, char **argv)
{
	unsigned long millions = argc > 1 ? strtoul(argv[1], NULL, 10) : 300;
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (unsigned long r = 0; r < millions; r++)
		nest(8, 1000000);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%lld\n", (long long)(b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec));
	return (int)(sink & 0);
}
