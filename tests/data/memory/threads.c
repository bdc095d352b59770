/* 4 threads, each 1000 malloc and 1000 free from worker(). */
#include <pthread.h>
#include <stdlib.h>

static void *worker(void *arg)
{
	for (int i = 0; i < 1000; i++)
		free(malloc(32 + (size_t)(i % 64)));
	return arg;
}

int main(void)
{
	pthread_t t[4];

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	return 0;
}
