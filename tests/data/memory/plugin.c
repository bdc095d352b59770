/* Loaded and unloaded by unload.c: its leak must keep its name. */
#include <stdlib.h>

__attribute__((noinline)) void *plugin_alloc(void)
{
	void *volatile p = malloc(2345);

	return p;
}
