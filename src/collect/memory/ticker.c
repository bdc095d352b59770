/* The driver's clock page for libveles-memory.so (ticker.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "collect/memory/ticker.h"
#include "util/common.h"

#define TICK_NS 2000000 /* a finer tick costs the driver more wakeups for nothing */
#define PAGE 4096

struct ticker {
	_Atomic uint64_t *word;
	atomic_bool stop;
	pthread_t thread;
};

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *tick(void *arg)
{
	struct ticker *t = arg;
	struct timespec pause = {0, TICK_NS};

	while (!atomic_load(&t->stop)) {
		atomic_store(t->word, monotonic_ns());
		nanosleep(&pause, NULL);
	}
	return NULL;
}

int ticker_start(const char *path, struct ticker **out)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600), e;
	struct ticker *t;
	void *p;

	if (fd < 0 || ftruncate(fd, PAGE) != 0) {
		e = errno;
		if (fd >= 0)
			close(fd);
		return err_set(ERR_IO, "collect memory: %s: %s", path, strerror(e));
	}
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	e = errno;
	close(fd);
	if (p == MAP_FAILED)
		return err_set(ERR_IO, "collect memory: cannot map %s: %s", path, strerror(e));
	t = xcalloc(1, sizeof(*t));
	t->word = p;
	atomic_store(t->word, monotonic_ns()); /* live before the command starts */
	if (pthread_create(&t->thread, NULL, tick, t) != 0) {
		munmap(p, PAGE);
		free(t);
		return err_set(ERR_IO, "collect memory: cannot start the clock thread");
	}
	*out = t;
	return 0;
}

void ticker_stop(struct ticker *t)
{
	if (!t)
		return;
	atomic_store(&t->stop, true);
	pthread_join(t->thread, NULL);
	munmap((void *)t->word, PAGE);
	free(t);
}
