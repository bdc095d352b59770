/*
 * monitor_floor [-s] COUNT: the floor under any sampler of cpu, disks,
 * memory and network — COUNT + 1 samples a second apart, each one sleep to
 * an absolute deadline, one pread of each of /proc/stat, /proc/diskstats,
 * /proc/meminfo and /proc/net/dev, and one write of a 180-byte line to
 * stdout, with nothing parsed or formatted. With -s it only sleeps (the
 * wake-up alone). bench/monitor.sh runs it beside `veles monitor`: what
 * veles spends above it is its own work.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/common.h"

int main(int argc, char **argv)
{
	static const char *const files[] = {"/proc/stat", "/proc/diskstats", "/proc/meminfo",
					    "/proc/net/dev"};
	static char buf[65536], line[180];
	bool sleep_only = argc == 3 && !strcmp(argv[1], "-s");
	long count = argc > 1 ? atol(argv[argc - 1]) : 0;
	int fd[ARRAY_SIZE(files)];
	struct timespec start;

	if (argc < 2 || argc > 3 || count < 1) {
		fprintf(stderr, "usage: monitor_floor [-s] COUNT\n");
		return 2;
	}
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		fd[i] = open(files[i], O_RDONLY | O_CLOEXEC);
	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\n';
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (long k = 0; k <= count; k++) {
		struct timespec at = {start.tv_sec + k, start.tv_nsec};

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
		if (sleep_only)
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(files); i++)
			if (fd[i] >= 0 && pread(fd[i], buf, sizeof(buf), 0) < 0)
				return 1;
		if (write(1, line, sizeof(line)) < 0)
			return 1;
	}
	return 0;
}
