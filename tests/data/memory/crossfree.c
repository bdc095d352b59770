/* One thread allocates 32-byte blocks, another frees them, through a ring
 * of 64 slots: at most 64 blocks (2 KiB) are ever live, besides stdio's
 * buffer and the 1000 bytes kept at the end. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define N 100000
#define Q 64
static void *_Atomic ring[Q];

static void *produce(void *arg)
{
	for (int i = 0; i < N; i++) {
		void *p = malloc(32), *empty = NULL;

		while (!atomic_compare_exchange_weak(&ring[i % Q], &empty, p))
			empty = NULL;
	}
	return arg;
}

static void *consume(void *arg)
{
	for (int i = 0; i < N; i++) {
		void *p;

		while (!(p = atomic_exchange(&ring[i % Q], NULL)))
			;
		free(p);
	}
	return arg;
}

int main(void)
{
	pthread_t a, b;
	void *kept;

	pthread_create(&a, NULL, produce, NULL);
	pthread_create(&b, NULL, consume, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	kept = malloc(1000);
	printf("mallocs %d frees %d kept %p\n", N + 1, N, kept);
	return 0;
}
