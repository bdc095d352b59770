/* Starts ARGV[1] threads one after another, each allocating and freeing
 * one block, then prints the process's VmSize in kB: it must not grow
 * with the number of threads that have ended. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *work(void *arg)
{
	void *volatile p = malloc(64);

	free(p);
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	char line[256];
	FILE *f;

	for (int i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, work, NULL) != 0)
			return 1;
		pthread_join(t, NULL);
	}
	f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "VmSize:", 7) == 0)
			printf("%ld\n", strtol(line + 7, NULL, 10));
	return f ? 0 : 1;
}
