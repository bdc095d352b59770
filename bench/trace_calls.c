/*
 * trace_calls N: calls a small function N times, for bench/trace.sh, which
 * builds it plain, with -finstrument-functions and with -pg and runs it
 * bare, under the trace runtime and under uftrace. Prints a checksum so
 * the calls cannot be optimised away.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) unsigned small(unsigned x)
{
	return x * 3u + 1u;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000;
	unsigned sum = 0;

	for (long i = 0; i < n; i++)
		sum += small((unsigned)i);
	printf("%u\n", sum);
	return 0;
}
