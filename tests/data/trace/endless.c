/*
 * endless [THREADS [LOOP]]: calls work() forever on the main thread and on
 * THREADS more; work() counts to LOOP (default 1000: 0 spends nearly all
 * the time in the hooks) and calls leaf() once, so that a trace stopped at
 * any instant has in each thread as many leaf calls as work calls, or one
 * more (the work call still open at the end is dropped). For --timeout
 * (tests/cli/t-trace_timeout.sh).
 */
#include <pthread.h>
#include <stdlib.h>

static volatile unsigned long sink;
static unsigned long loop = 1000;

__attribute__((noinline)) static void leaf(unsigned long i)
{
	sink += i;
}

__attribute__((noinline)) static void work(unsigned long i)
{
	for (unsigned long k = 0; k < loop; k++)
		sink += k;
	leaf(i);
}

static void *spin(void *arg)
{
	for (unsigned long i = 0;; i++)
		work(i);
	return arg;
}

int main(int argc, char **argv)
{
	long threads = argc > 1 ? atol(argv[1]) : 0;
	pthread_t t;

	if (argc > 2)
		loop = strtoul(argv[2], NULL, 10);
	for (long i = 0; i < threads; i++)
		if (pthread_create(&t, NULL, spin, NULL) != 0)
			return 1;
	spin(NULL);
	return 0;
}
