/* Known counts for what a release is (tests/cli/t-collect_memory.sh):
 * 4 allocations of 1048640 bytes (2 malloc of 16, a realloc that moves a
 * block to 1 MiB, a realloc of NULL to 32) and 3 releases (the moved
 * block's old one, a realloc to size 0, a free); the second malloc's 16
 * bytes leak. Exits 3 if the realloc did not move its block. */
#include <stdint.h>
#include <stdlib.h>

static void *keep;

int main(void)
{
	void *a = malloc(16);
	uintptr_t was = (uintptr_t)a;
	void *c;

	keep = malloc(16); /* after a: a cannot grow where it is */
	a = realloc(a, 1 << 20);
	if (!a || (uintptr_t)a == was)
		return 3;
	c = realloc(NULL, 32);
	if (!c || realloc(c, 0) != NULL) /* a release, and no allocation */
		return 4;
	free(a);
	return keep == NULL;
}
