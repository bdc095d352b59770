/* libmicrohttpd and HDF5 loaded on first use (lazy.h says why). */
#include <dlfcn.h>
#include <stddef.h>

#define LAZY_NO_CALL_MACROS
#include "serve/lazy.h"
#include "util/common.h"
#include "util/error.h"

struct mhd_lazy mhd_lazy_table;
struct h5_lazy h5_lazy_table;

struct sym {
	const char *name;
	size_t offset;
};

static const struct sym mhd_syms[] = {
#define ENTRY(name) {#name, offsetof(struct mhd_lazy, name)},
	MHD_LAZY_FUNCS(ENTRY)
#undef ENTRY
};

static const struct sym h5_syms[] = {
#define ENTRY(name) {#name, offsetof(struct h5_lazy, name)},
	H5_LAZY_FUNCS(ENTRY) H5_LAZY_VARS(ENTRY)
#undef ENTRY
};

/* VELES_*_SONAME: the sonames of the libraries we compiled against
 * (src/serve/meson.build). */
static int load(const char *soname, const struct sym *syms, size_t n, void *table, bool *done)
{
	void *h;

	if (*done)
		return 0;
	h = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
	if (!h)
		return err_set(ERR_GENERIC, "cannot load %s: %s", soname, dlerror());
	for (size_t i = 0; i < n; i++) {
		void *p = dlsym(h, syms[i].name);

		if (!p)
			return err_set(ERR_GENERIC, "cannot load %s: no %s in it", soname,
				       syms[i].name);
		*(void **)((char *)table + syms[i].offset) = p;
	}
	*done = true;
	return 0;
}

int lazy_load_mhd(void)
{
	static bool done;

	return load(VELES_MHD_SONAME, mhd_syms, ARRAY_SIZE(mhd_syms), &mhd_lazy_table, &done);
}

int lazy_load_h5(void)
{
	static bool done;
	int ret = load(VELES_HDF5_SONAME, h5_syms, ARRAY_SIZE(h5_syms), &h5_lazy_table, &done);

	/* The type variables hold their ids once H5open ran. */
	if (ret == 0 && h5_lazy_table.H5open() < 0)
		return err_set(ERR_GENERIC, "cannot start %s", VELES_HDF5_SONAME);
	return ret;
}
