/* Built without frame pointers (t-memory_stacks.sh): the stack of its
 * allocation must go on past it to the program's callers. */
#include <stdlib.h>

__attribute__((noinline)) static void *nofp_inner(size_t n)
{
	void *p = malloc(n);

	__asm__ volatile("" : : "r"(p) : "memory");
	return p;
}

__attribute__((noinline)) void *nofp_alloc(size_t n)
{
	void *p = nofp_inner(n);

	__asm__ volatile("" : : "r"(p) : "memory");
	return p;
}
