/* Nine mallocs of 55 bytes, then argv[1] run through fexecve (or, with a
 * third argument, execveat on its descriptor): both end the image and
 * must write out what it recorded first. */
#define _GNU_SOURCE /* execveat */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
	char *args[] = {argv[1], NULL};
	int fd;

	for (int i = 0; i < 9; i++) {
		void *volatile p = malloc(55);

		(void)p;
	}
	fd = argc > 1 ? open(argv[1], O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0)
		return 1;
	if (argc > 2)
		execveat(fd, "", args, environ, AT_EMPTY_PATH);
	else
		fexecve(fd, args, environ);
	return 1;
}
