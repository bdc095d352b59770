/* The parent makes 5 allocations in parent_work(), the child 7 in
 * child_work(); each process gets its own records. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void *keep[16];

static void child_work(void)
{
	for (int i = 0; i < 7; i++)
		keep[i] = malloc(100);
}

static void parent_work(void)
{
	for (int i = 0; i < 5; i++)
		keep[i] = malloc(200);
}

int main(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		child_work();
		exit(0);
	}
	parent_work();
	waitpid(pid, NULL, 0);
	return 0;
}
