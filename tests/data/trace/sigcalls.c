/*
 * sigcalls N: N calls of work() while another thread signals this one
 * every 20 microseconds; the handler calls functions too, every 16th time
 * enough of them to fill the trace buffer. Prints how many calls of the
 * handler and of leaf() the program made, for an exact comparison.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile long leaves, handled;
static volatile int done;
static pthread_t main_thread;

__attribute__((noinline)) void leaf(void)
{
	leaves++;
	__asm__ volatile("");
}

/* Every 16th signal makes enough calls to fill a buffer in the handler. */
__attribute__((noinline)) void burst(int n)
{
	for (int i = 0; i < n; i++)
		leaf();
}

static void on_prof(int s)
{
	(void)s;
	handled++;
	burst(handled % 16 ? 3 : 3000);
}

__attribute__((noinline)) unsigned work(unsigned x)
{
	__asm__ volatile("");
	return x * 3 + 1;
}

/* Signals the main thread every 20 microseconds or so until it is done. */
static void *kicker(void *arg)
{
	struct timespec ts = {0, 20000};

	(void)arg;
	while (!done) {
		pthread_kill(main_thread, SIGUSR1);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long n = atol(argv[1]);
	unsigned s = 0;
	pthread_t k;

	main_thread = pthread_self();
	signal(SIGUSR1, on_prof);
	pthread_create(&k, NULL, kicker, NULL);
	for (long i = 0; i < n; i++)
		s += work((unsigned)i);
	done = 1;
	pthread_join(k, NULL);
	printf("%u burst %ld leaf %ld\n", s, handled, leaves);
	return 0;
}
