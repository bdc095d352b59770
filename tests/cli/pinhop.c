/* pinhop: spins in spin_loop on the CPU it was started on, then moves
 * itself to CPU 0 and spins there; its samples land in two CPUs' ring
 * buffers, the mmap and comm records naming it only in the first. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void spin_loop(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}

int main(void)
{
	cpu_set_t set;

	spin_loop(20000000);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		perror("sched_setaffinity");
	spin_loop(60000000);
	printf("%lu\n", sink & 1);
	return 0;
}
