/* Leaks 6666 bytes through nocfi.c, whose frame has no unwind tables. */
#include <stdio.h>
#include <stdlib.h>

void *nocfi_alloc(size_t n);

__attribute__((noinline)) static void *via_nocfi(size_t n)
{
	void *p = nocfi_alloc(n);

	__asm__ volatile("" : "+r"(p));
	return p;
}

int main(void)
{
	void *volatile p = via_nocfi(6666);

	printf("%p\n", p);
	return 0;
}
