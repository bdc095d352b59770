/* Allocates 10 blocks of 16 bytes in early(), sleeps 300 ms, then 10 of 32
 * in late(): the two groups lie about 12 snapshots of 25 ms apart. */
#include <stdlib.h>
#include <time.h>

static void *keep[20];

__attribute__((noinline)) static void early(void)
{
	for (int i = 0; i < 10; i++)
		keep[i] = malloc(16);
}

__attribute__((noinline)) static void late(void)
{
	for (int i = 10; i < 20; i++)
		keep[i] = malloc(32);
}

int main(void)
{
	struct timespec pause = {0, 300 * 1000 * 1000};

	early();
	nanosleep(&pause, NULL);
	late();
	return keep[0] == keep[19];
}
