/* Known system calls for t-script.sh: its pid on stdout, then 5 getppid and
 * 3 close(12345) (a descriptor that is not open). */
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	printf("%d\n", (int)getpid());
	fflush(stdout);
	for (int i = 0; i < 5; i++)
		syscall(SYS_getppid);
	for (int i = 0; i < 3; i++)
		syscall(SYS_close, 12345);
	return 0;
}
