/*
 * One allocation site reached along three stacks that share their first
 * two frames (site, mid) and differ beyond, in turns: each stack's
 * allocations must keep their own stack, however they alternate. Each
 * leaks its own total: via_a 300 * 7, via_b 200 * 7, via_c 100 * 7.
 */
#include <stdlib.h>

void *volatile sink;

__attribute__((noinline)) void *site(void)
{
	return malloc(7);
}

__attribute__((noinline)) void mid(void)
{
	sink = site();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void via_a(void)
{
	mid();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void via_b(void)
{
	mid();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void via_c(void)
{
	mid();
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	for (int i = 0; i < 300; i++) {
		via_a();
		if (i % 3 != 2)
			via_b();
		if (i % 3 == 0)
			via_c();
	}
	return 0;
}
