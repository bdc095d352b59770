/*
 * killed READY [thread|fork|one] [N]: N mallocs of 16 bytes in main
 * (default 1000, at most 200000: many fill the buffer more than once), and
 * with "thread" 500 of 32 in a second thread, all kept; then writes its
 * pid to READY and waits to be killed (SIGKILL, which no handler sees).
 * With "fork" a child does all that after 10 mallocs of 8 in
 * before_fork, and the parent, once the child is killed, makes 3 of 64 in
 * after_child and exits. With "badexec" it makes those 10 mallocs, then
 * an exec that fails, then goes on as with "one".
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAIN_MAX 200000

static void *keep[MAIN_MAX + 500];
static pthread_barrier_t done;

static void *worker(void *arg)
{
	for (int i = 0; i < 500; i++)
		keep[MAIN_MAX + i] = malloc(32);
	pthread_barrier_wait(&done);
	for (;;)
		pause();
	return arg;
}

__attribute__((noinline)) static void before_fork(void)
{
	for (int i = 0; i < 10; i++)
		keep[MAIN_MAX + i] = malloc(8);
}

/* The parent's part with "fork": its records go on after the child's end. */
__attribute__((noinline)) static int after_child(pid_t child)
{
	int status;

	if (waitpid(child, &status, 0) != child)
		return 1;
	for (int i = 0; i < 3; i++)
		keep[MAIN_MAX + 10 + i] = malloc(64);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? 0 : 1;
}

int main(int argc, char **argv)
{
	pthread_t th;
	char pid[32];
	int fd, two = argc > 2 && strcmp(argv[2], "thread") == 0;
	long n = argc > 3 ? atol(argv[3]) : 1000;

	if (argc < 2 || n < 0 || n > MAIN_MAX)
		return 2;
	if (argc > 2 && strcmp(argv[2], "badexec") == 0) {
		char *none[] = {"/nonexistent/killed", NULL};

		before_fork();
		execv(none[0], none);
	}
	if (argc > 2 && strcmp(argv[2], "fork") == 0) {
		pid_t child;

		before_fork();
		child = fork();
		if (child < 0)
			return 1;
		if (child > 0)
			return after_child(child);
	}
	for (long i = 0; i < n; i++)
		keep[i] = malloc(16);
	if (two) {
		pthread_barrier_init(&done, NULL, 2);
		pthread_create(&th, NULL, worker, NULL);
		pthread_barrier_wait(&done);
	}
	/* Written whole, then renamed: the test reads a complete pid. */
	snprintf(pid, sizeof(pid), "%s.tmp", argv[1]);
	fd = open(pid, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 1;
	dprintf(fd, "%ld\n", (long)getpid());
	close(fd);
	rename(pid, argv[1]);
	for (;;)
		pause();
}
