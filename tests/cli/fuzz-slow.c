/*
 * A program with planted faults for t-fuzz.sh: reads its input (the file
 * named last, else stdin) and, when the input holds a byte of the -s
 * argument, runs a loop quadratic in the input's length a hundred times
 * over (ten to a hundred times the cost of a run without it); with a byte
 * of -H it hangs, else with a byte of -c it crashes (SIGSEGV).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned char *read_all(FILE *f, size_t *len)
{
	size_t cap = 4096;
	unsigned char *b = malloc(cap);

	*len = 0;
	for (size_t n; b && (n = fread(b + *len, 1, cap - *len, f)) > 0;) {
		*len += n;
		if (*len == cap)
			b = realloc(b, cap *= 2);
	}
	return b;
}

static int has_any(const unsigned char *in, size_t len, const char *set)
{
	for (; set && *set; set++)
		if (memchr(in, (unsigned char)*set, len))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *slow = NULL, *crash = NULL, *hang = NULL;
	int opt;
	unsigned char *in;
	size_t len;
	volatile unsigned long sum = 0;
	FILE *f = stdin;

	while ((opt = getopt(argc, argv, "s:c:H:")) != -1) {
		if (opt == 's')
			slow = optarg;
		else if (opt == 'c')
			crash = optarg;
		else if (opt == 'H')
			hang = optarg;
		else
			return 2;
	}
	if (optind < argc && !(f = fopen(argv[optind], "rb")))
		return 2;
	in = read_all(f, &len);
	if (!in)
		return 2;
	/* The rarer byte first, so that an input with both still hangs. */
	if (has_any(in, len, hang))
		for (;;)
			pause();
	if (has_any(in, len, crash))
		raise(SIGSEGV);
	for (size_t i = 0; i < len; i++)
		sum += in[i];
	if (has_any(in, len, slow))
		for (int r = 0; r < 100; r++)
			for (size_t i = 0; i < len; i++)
				for (size_t j = 0; j < len; j++)
					sum += in[i] ^ in[j];
	free(in);
	return sum == 42;
}
