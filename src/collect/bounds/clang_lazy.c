/* libclang loaded on first use (clang_lazy.h says why). */
#include <dlfcn.h>
#include <stddef.h>

#include "collect/bounds/clang_lazy.h"
#include "util/common.h"

static struct clang_api api;
static bool loaded;

static const struct {
	const char *name;
	size_t offset;
} syms[] = {
#define CLANG_LAZY_ENTRY(name) {#name, offsetof(struct clang_api, name)},
	CLANG_LAZY_FUNCS(CLANG_LAZY_ENTRY)
#undef CLANG_LAZY_ENTRY
};

int clang_lazy_load(const struct clang_api **out)
{
	void *h;

	if (loaded) {
		*out = &api;
		return 0;
	}
	/* VELES_LIBCLANG: the library we compiled against, by its path, so
	 * that it finds its own headers (stddef.h ...) beside it. */
	h = dlopen(VELES_LIBCLANG, RTLD_LAZY | RTLD_LOCAL);
	if (!h)
		return err_set(ERR_GENERIC, "cannot load libclang (%s): %s", VELES_LIBCLANG,
			       dlerror());
	for (size_t i = 0; i < ARRAY_SIZE(syms); i++) {
		void *fn = dlsym(h, syms[i].name);

		if (!fn)
			return err_set(ERR_GENERIC, "cannot load libclang (%s): no %s in it",
				       VELES_LIBCLANG, syms[i].name);
		*(void **)((char *)&api + syms[i].offset) = fn;
	}
	loaded = true;
	*out = &api;
	return 0;
}
