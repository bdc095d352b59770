/*
 * spawn_floor N CMD [ARGS...]: the floor any command timer stands on — N
 * runs of CMD through a bare posix_spawnp + wait4 loop with a monotonic
 * clock read around each run, nothing else. Prints the microseconds per
 * run. bench/collect_time.sh compares `veles collect time` against it.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "util/common.h"

extern char **environ;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	double start, total = 0;
	long n;

	if (argc < 3 || (n = strtol(argv[1], NULL, 10)) < 1) {
		fprintf(stderr, "usage: spawn_floor N CMD [ARGS...]\n");
		return 2;
	}
	start = now();
	for (long i = 0; i < n; i++) {
		struct rusage ru;
		double t0 = now();
		pid_t pid;
		int status, rc;

		rc = posix_spawnp(&pid, argv[2], NULL, NULL, argv + 2, environ);
		if (rc) {
			fprintf(stderr, "spawn_floor: cannot run '%s'\n", argv[2]);
			return 1;
		}
		wait4(pid, &status, 0, &ru);
		total += now() - t0;
	}
	printf("spawn_floor: %ld runs of %s: %.1f µs/run (%.1f µs/run including the loop)\n", n,
	       argv[2], total / (double)n * 1e6, (now() - start) / (double)n * 1e6);
	return 0;
}
