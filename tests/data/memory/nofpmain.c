/* Leaks 4321 bytes through a library without frame pointers. */
#include <stdio.h>
#include <stdlib.h>

void *nofp_alloc(size_t n);

__attribute__((noinline)) static void *through_library(void)
{
	return nofp_alloc(4321);
}

int main(void)
{
	void *volatile p = through_library();

	printf("%p\n", p);
	return 0;
}
