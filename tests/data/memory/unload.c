/* dlopen, a leak in the library, dlclose: the library is gone before the
 * program ends. argv[1] is the library. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
	void *(*f)(void);
	void *p;

	if (!h)
		return 1;
	*(void **)&f = dlsym(h, "plugin_alloc");
	p = f ? f() : NULL;
	dlclose(h);
	printf("%p\n", p);
	return 0;
}
