/* Allocates and frees in a loop until killed, keeping the count of mallocs
 * that returned in the file ARGV[1] (a shared mapping, so that the count
 * survives the kill): collect memory must record that many, or one more.
 * With ARGV[2] "self", a second thread sends the loop's thread SIGTERM
 * after 100000 mallocs, most often inside one; with "slow", it sleeps a
 * little every 64 mallocs and waits for someone else's signal. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static _Atomic unsigned long *count;
static pthread_t looping;

static void *killer(void *arg)
{
	while (atomic_load_explicit(count, memory_order_relaxed) < 100000)
		;
	pthread_kill(looping, SIGTERM);
	return arg;
}

int main(int argc, char **argv)
{
	int fd = argc > 2 ? open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600) : -1;
	bool slow = argc > 2 && strcmp(argv[2], "slow") == 0;
	struct timespec nap = {0, 100000};
	pthread_t t;

	if (fd < 0 || ftruncate(fd, 4096) != 0)
		return 2;
	count = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (count == MAP_FAILED)
		return 2;
	looping = pthread_self();
	if (!slow && pthread_create(&t, NULL, killer, NULL) != 0)
		return 2;
	for (unsigned long i = 1;; i++) {
		void *p = malloc(24);

		atomic_fetch_add_explicit(count, 1, memory_order_relaxed);
		free(p);
		if (slow && i % 64 == 0)
			nanosleep(&nap, NULL);
	}
}
