/* Two allocations in before_exec(), then the program execs itself, and
 * the new image makes four in after_exec(): one pid, two images. execl,
 * because glibc's execl reaches the kernel without calling execve. */
#include <stdlib.h>
#include <unistd.h>

static void *keep[4];

static void before_exec(void)
{
	for (int i = 0; i < 2; i++)
		keep[i] = malloc(10);
}

static void after_exec(void)
{
	for (int i = 0; i < 4; i++)
		keep[i] = malloc(20);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		after_exec();
		return 0;
	}
	before_exec();
	execl(argv[0], argv[0], "again", (char *)NULL);
	return 1;
}
