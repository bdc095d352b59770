/* Built -O2 -fomit-frame-pointer (t-memory_stacks.sh): four levels of
 * calls without frame pointers down to malloc, which the runtime must
 * unwind by the unwind tables alone (--unwind cfi). Levels keep six values
 * across their call, so that rbp is saved as any other register, and one
 * has a large frame, so that the CFA lies far from the stack pointer. */
#include <stdlib.h>
#include <string.h>

#define KEEP(x) __asm__ volatile("" : "+r"(x))

volatile size_t cfi_sink;

__attribute__((noinline)) static void *level4(size_t n)
{
	void *p = malloc(n);

	KEEP(p);
	return p;
}

__attribute__((noinline)) static void *level3(size_t n)
{
	char buf[8192];
	void *p;

	memset(buf, (int)n, sizeof(buf));
	KEEP(n);
	p = level4(n + (size_t)(buf[n % sizeof(buf)] - buf[0]));
	cfi_sink = (size_t)buf[n % 100];
	return p;
}

__attribute__((noinline)) static void *level2(size_t n)
{
	size_t a = n * 3, b = n * 5, c = n * 7, d = n * 11, e = n * 13, f = n * 17;
	void *p;

	KEEP(a);
	KEEP(b);
	KEEP(c);
	KEEP(d);
	KEEP(e);
	KEEP(f);
	p = level3(n);
	KEEP(a);
	KEEP(b);
	KEEP(c);
	KEEP(d);
	KEEP(e);
	KEEP(f);
	cfi_sink = a + b + c + d + e + f;
	return p;
}

__attribute__((noinline)) void *cfi_alloc(size_t n)
{
	void *p = level2(n);

	KEEP(p);
	return p;
}
