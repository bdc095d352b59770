/*
 * A program whose hot function's name, the uid of its profile's rows, is
 * markup: <script>alert(1)</script> (an assembler name no C identifier can
 * spell). The serve tests check that the page shows it as text.
 */
#include <stdlib.h>

static volatile double sink;

__attribute__((noinline)) void spin(long n) __asm__("\"<script>alert(1)</script>\"");

__attribute__((noinline)) void spin(long n)
{
	for (long i = 0; i < n; i++)
		sink += (double)i * 0.5;
}

int main(int argc, char **argv)
{
	spin(argc > 1 ? atol(argv[1]) : 100000000);
	return 0;
}
