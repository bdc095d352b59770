/* Leaks 5555 bytes through cfilib.c; built without frame pointers too. */
#include <stdio.h>
#include <stdlib.h>

void *cfi_alloc(size_t n);

__attribute__((noinline)) static void *via_main(size_t n)
{
	void *p = cfi_alloc(n);

	__asm__ volatile("" : "+r"(p));
	return p;
}

int main(void)
{
	void *volatile p = via_main(5555);

	printf("%p\n", p);
	return 0;
}
