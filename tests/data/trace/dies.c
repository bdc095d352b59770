/*
 * dies HOW N [FILE THREADS]: N calls of work(), each of which calls leaf()
 * ten times, then the program dies by HOW: segv (a null write), abort, or
 * exit (it does not die). With HOW kill it works on forever, on the main
 * thread and THREADS more, until killed from outside: after each work()
 * returns it adds one to its thread's count in FILE, mapped shared, so
 * that the counts survive a SIGKILL (the first word is the pid, then one
 * count per thread, main first). For tests/cli/t-trace_crash.sh: a trace
 * of a program that died keeps every call it completed.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile unsigned long sink;
static volatile uint64_t *counts;

__attribute__((noinline)) void leaf(unsigned long i)
{
	sink += i;
}

__attribute__((noinline)) void work(unsigned long i)
{
	for (int k = 0; k < 10; k++)
		leaf(i + (unsigned long)k);
}

static void *forever(void *arg)
{
	volatile uint64_t *count = arg;

	for (unsigned long i = 0;; i++) {
		work(i);
		*count = *count + 1;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "exit";
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;

	for (unsigned long i = 0; i < n; i++)
		work(i);
	if (strcmp(how, "segv") == 0) {
		int *volatile nowhere = NULL;

		*nowhere = 1;
	}
	if (strcmp(how, "abort") == 0)
		abort();
	if (strcmp(how, "kill") == 0 && argc > 4) {
		int threads = atoi(argv[4]), fd = open(argv[3], O_RDWR | O_CREAT | O_TRUNC, 0644);
		size_t size = (size_t)(threads + 2) * sizeof(uint64_t);
		pthread_t t;

		if (fd < 0 || ftruncate(fd, (off_t)size) < 0)
			return 2;
		counts = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (counts == MAP_FAILED)
			return 2;
		counts[0] = (uint64_t)getpid();
		for (int i = 0; i < threads; i++)
			pthread_create(&t, NULL, forever, (void *)&counts[i + 2]);
		forever((void *)&counts[1]);
	}
	return 0;
}
