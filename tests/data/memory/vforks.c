/* vfork children that exec a program, fail to exec, and just _exit: the
 * parent mallocs 5 blocks of 10 bytes before them and 7 of 20 after. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static void before(void)
{
	for (int i = 0; i < 5; i++)
		free(malloc(10));
}

__attribute__((noinline)) static void after(void)
{
	for (int i = 0; i < 7; i++)
		free(malloc(20));
}

static void child(const char *path)
{
	pid_t pid = vfork();

	if (pid == 0) {
		if (path)
			execl(path, path, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

int main(void)
{
	before();
	child("/bin/true");
	child("/nonexistent");
	child(NULL);
	after();
	printf("before 5x10, after 7x20\n");
	return 0;
}
