/* hot: spends most of its CPU time in hot_loop (called through middle)
 * and the rest in cold_loop; the workload for record + report.
 * Each loop runs once, in one stretch: a machine whose sampling timer
 * ticks at the scheduler's rate rather than at -F aliased with a workload
 * that alternated the two every millisecond (hot_loop was seen at 70%,
 * cold_loop at 28%). cold_loop runs long enough (some 25 ms) to get
 * samples at a 250 Hz tick too. An argument N runs it all N times: a
 * program that is still running when a slow `record -a` starts. */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void hot_loop(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}

__attribute__((noinline)) static void cold_loop(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink ^= i;
}

__attribute__((noinline)) static void middle(unsigned long n)
{
	hot_loop(n);
	sink++; /* not a tail call: middle stays in the call chain */
}

int main(int argc, char **argv)
{
	long times = argc > 1 ? atol(argv[1]) : 1;

	for (long i = 0; i < times; i++) {
		middle(600000000);
		cold_loop(100000000);
	}
	printf("%lu\n", sink & 1);
	return 0;
}
