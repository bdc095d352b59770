/*
 * retvals N: functions that take and return values in every register
 * class the SysV ABI uses, called N times each, for the -pg trace's
 * return trampoline: doubles in xmm0, two doubles in xmm0 and xmm1, a
 * small structure in rax and rdx, a large one through memory, a long
 * double on the x87 stack, float arguments in xmm0-7, and a longjmp out
 * of nested calls. Prints "ok" and the calls of each, or what went wrong.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

struct pair {
	long a, b;
};
struct dpair {
	double x, y;
};
struct big {
	long v[6];
};

static jmp_buf env;
static int bad;

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			printf("wrong: %s\n", #c);                                                 \
			bad = 1;                                                                   \
		}                                                                                  \
	} while (0)

__attribute__((noinline)) double half(double x)
{
	return x / 2;
}

__attribute__((noinline)) struct dpair dswap(struct dpair p)
{
	return (struct dpair){p.y, p.x};
}

__attribute__((noinline)) struct pair pswap(long a, long b)
{
	return (struct pair){b, a};
}

__attribute__((noinline)) struct big bigfill(long x)
{
	struct big g;

	for (int i = 0; i < 6; i++)
		g.v[i] = x + i;
	return g;
}

__attribute__((noinline)) long double ldsum(long double a, long double b)
{
	return a + b;
}

__attribute__((noinline)) double fsum8(double a, double b, double c, double d, double e, double f,
				       double g, double h)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h;
}

__attribute__((noinline)) void jump_down(int n)
{
	if (n == 0)
		longjmp(env, 1);
	jump_down(n - 1);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;

	for (long i = 0; i < n && !bad; i++) {
		double x = (double)i;
		struct dpair d = dswap((struct dpair){x, x + 0.5});
		struct pair p = pswap(i, -i);
		struct big g = bigfill(i);

		CHECK(half(x) == x / 2);
		CHECK(d.x == x + 0.5 && d.y == x);
		CHECK(p.a == -i && p.b == i);
		CHECK(g.v[0] == i && g.v[5] == i + 5);
		CHECK(ldsum((long double)x, 0.25L) == (long double)x + 0.25L);
		CHECK(fsum8(1, 1, 1, 1, 1, 1, 1, x) == 28 + 8 * x);
		if (setjmp(env) == 0)
			jump_down(3);
	}
	if (!bad)
		printf("ok %ld\n", n);
	return bad;
}
