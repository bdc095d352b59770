/* 3 allocations in main(), then _exit: no destructors run. */
#include <stdlib.h>
#include <unistd.h>

static void *keep[3];

int main(void)
{
	for (int i = 0; i < 3; i++)
		keep[i] = malloc(8);
	_exit(0);
}
