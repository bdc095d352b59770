/* The clock page of collect memory (collect/memory/ticker.c): its thread
 * keeps the shared word at CLOCK_MONOTONIC while it runs, and stops. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "collect/memory/ticker.h"
#include "util/common.h"
#include "util/error.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void test_ticks_until_stopped(void **state)
{
	char dir[] = "/tmp/veles-ticker-XXXXXX";
	char *path;
	struct ticker *t = NULL;
	_Atomic uint64_t *word;
	uint64_t first, later = 0, start = now_ns();
	int fd;

	UNUSED(state);
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/clock", dir);
	assert_int_equal(ticker_start(path, &t), 0);
	/* Read as the runtime reads it: its own mapping of the file. */
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	word = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(word != MAP_FAILED);
	close(fd);
	first = atomic_load(word);
	assert_true(first >= start - 1000000000u && first <= now_ns());
	/* It moves on its own (2 ms a tick; ten seconds allowed for a loaded machine). */
	for (int i = 0; i < 10000 && (later = atomic_load(word)) == first; i++)
		usleep(1000);
	assert_true(later > first);
	ticker_stop(t);
	later = atomic_load(word);
	usleep(20000);
	assert_true(atomic_load(word) == later);
	munmap((void *)word, 4096);
	/* The file is the driver's to remove; a second start on it fails. */
	assert_int_equal(ticker_start(path, &t), ERR_IO);
	unlink(path);
	rmdir(dir);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ticks_until_stopped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
