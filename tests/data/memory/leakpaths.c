/* One allocation site, make(), reached from three callers: tidy() frees
 * its 3 blocks of 10 bytes, leak_one() leaks 100 bytes, leak_two() leaks
 * 2 blocks of 200. The leaks must show the stacks that leaked. */
#include <stdlib.h>

__attribute__((noinline)) static void *make(size_t n)
{
	return malloc(n);
}

__attribute__((noinline)) static void tidy(void)
{
	for (int i = 0; i < 3; i++)
		free(make(10));
}

__attribute__((noinline)) static void *leak_one(void)
{
	return make(100);
}

__attribute__((noinline)) static void *leak_two(void)
{
	return make(200);
}

int main(void)
{
	static void *kept[3];

	tidy();
	kept[0] = leak_one();
	kept[1] = leak_two();
	kept[2] = leak_two();
	return kept[0] && kept[1] && kept[2] ? 0 : 1;
}
