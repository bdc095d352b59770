/* A caller whose frame pointer holds data, as code built without frame
 * pointers leaves it: the walk must stop there, not record the text of an
 * environment string as a return address. Build with -mno-red-zone. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void *bad_frame(void)
{
	volatile uintptr_t fake[4];
	void *p;

	fake[0] = (uintptr_t)&fake[2];
	fake[1] = 0x2f3d4c4c45485300u; /* "\0SHELL=/" */
	fake[2] = 0;
	fake[3] = 0;
	__asm__ volatile("sub $8, %%rsp\n\t"
			 "push %%rbp\n\t"
			 "mov %1, %%rbp\n\t"
			 "mov $777, %%edi\n\t"
			 "call malloc@PLT\n\t"
			 "pop %%rbp\n\t"
			 "add $8, %%rsp"
			 : "=a"(p)
			 : "r"(fake)
			 : "rdi", "rsi", "rdx", "rcx", "r8", "r9", "r10", "r11", "memory");
	return p;
}

int main(void)
{
	void *volatile p = bad_frame();

	printf("%p\n", p);
	return 0;
}
