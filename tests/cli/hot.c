/* hot: spends about 90% of its CPU time in hot_loop (called through
 * middle) and the rest in cold_loop; the workload for record + report.
 * Long enough (some 0.2 s of CPU) that cold_loop's tenth is never left
 * without a sample: with 30 samples it was, one time in twenty-five. */
#include <stdio.h>

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

int main(void)
{
	for (int r = 0; r < 100; r++) {
		middle(3000000);
		cold_loop(300000);
	}
	printf("%lu\n", sink & 1);
	return 0;
}
