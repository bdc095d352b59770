/* Allocations made inside functions the compiler inlines: new_item is
 * folded into parse_number and parse_string (and those into parse), so a
 * return address of malloc's caller lies in parse's code. The memory
 * collector names the site new_item at its own line, with each caller at
 * the line of its call; leaks of 1111 and 2222 bytes share the site. */
#include <stdlib.h>
#include <string.h>

struct item {
	char *text;
};

static inline __attribute__((always_inline)) struct item *new_item(size_t n)
{
	struct item *it = malloc(n); /* the site */

	if (it)
		memset(it, 0, n);
	return it;
}

static inline __attribute__((always_inline)) struct item *parse_number(void)
{
	return new_item(1111); /* parse_number's call */
}

static inline __attribute__((always_inline)) struct item *parse_string(void)
{
	return new_item(2222); /* parse_string's call */
}

__attribute__((noinline)) static struct item *parse(int kind)
{
	return kind ? parse_string() : parse_number(); /* parse's calls */
}

int main(int argc, char **argv)
{
	(void)argv;
	volatile struct item *keep[2];

	keep[0] = parse(0);
	keep[1] = parse(argc);
	return keep[0] && keep[1] ? 0 : 1;
}
