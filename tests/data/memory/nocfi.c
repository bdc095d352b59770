/* Built without frame pointers and without unwind tables
 * (t-memory_stacks.sh): the stack of its allocation can go no further
 * than its own frame, and must end there. The other functions are there
 * so that the runtime can tell from their prologues that the library
 * lacks frame pointers. */
#include <stdlib.h>

#define KEEP(x) __asm__ volatile("" : "+r"(x))

__attribute__((noinline)) void *nocfi_alloc(size_t n)
{
	void *p = malloc(n);

	KEEP(p);
	return p;
}

__attribute__((noinline)) size_t nocfi_a(size_t n)
{
	size_t s = 0;

	for (size_t i = 0; i < n; i++)
		s += i * i ^ n;
	return s;
}

__attribute__((noinline)) size_t nocfi_b(size_t n)
{
	return nocfi_a(n) * 3 + nocfi_a(n / 2);
}

__attribute__((noinline)) size_t nocfi_c(size_t n)
{
	return nocfi_b(n) ^ nocfi_a(n + 7);
}

__attribute__((noinline)) size_t nocfi_d(size_t n)
{
	return nocfi_c(n) + nocfi_b(n * 5);
}
