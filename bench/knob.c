/*
 * knob PERCENT [UNITS]: a fixed amount of CPU work (UNITS, default 16000,
 * each a few microseconds of integer hashing), plus PERCENT more: the
 * program the detection study plants slowdowns of a known size in.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t unit(uint64_t h)
{
	for (int i = 0; i < 1000; i++)
		h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull + (uint64_t)i;
	return h;
}

int main(int argc, char **argv)
{
	double percent = argc > 1 ? atof(argv[1]) : 0;
	long units = argc > 2 ? atol(argv[2]) : 16000;
	long total = units + (long)((double)units * percent / 100.0 + 0.5);
	uint64_t h = 1;

	for (long i = 0; i < total; i++)
		h = unit(h);
	/* Printed so the work cannot be optimised away. */
	printf("%llu\n", (unsigned long long)(h & 0xff));
	return 0;
}
