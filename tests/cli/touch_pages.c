/* touch_pages N [SPIN_MS]: faults in N fresh pages (one write each, no huge
 * pages), then burns SPIN_MS of CPU time; a workload with a known number of
 * page faults for `veles stat` and bench/stat.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static void spin(long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0, page = sysconf(_SC_PAGESIZE);
	volatile char *p;

	if (n > 0) {
		p = mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return perror("mmap"), 1;
		madvise((void *)p, (size_t)(n * page), MADV_NOHUGEPAGE);
		for (long i = 0; i < n; i++)
			p[i * page] = 1;
	}
	spin(argc > 2 ? atol(argv[2]) : 0);
	return 0;
}
