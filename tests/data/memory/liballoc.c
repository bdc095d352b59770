/* A shared library that allocates: lib_make() makes 6 blocks of 48 bytes. */
#include <stdlib.h>

void **lib_make(void);

void **lib_make(void)
{
	void **v = calloc(6, sizeof(*v));

	for (int i = 0; v && i < 6; i++)
		v[i] = malloc(48); /* the library's malloc line */
	return v;
}
