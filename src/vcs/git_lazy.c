/* libgit2 loaded on first use (git_lazy.h says why). */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

/* Here the names must stay names: no call macros. */
#define GIT_LAZY_NO_CALL_MACROS
#include "util/common.h"
#include "vcs/git_lazy.h"

struct git_lazy git_lazy_table;
_Atomic bool git_lazy_loaded;
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
/* VELES_LIBGIT2_SONAME: the soname of the libgit2 we compiled against
 * (src/vcs/meson.build). */
static const char *library = VELES_LIBGIT2_SONAME;

static const struct {
	const char *name;
	size_t offset;
} lazy_syms[] = {
#define GIT_LAZY_ENTRY(name) {#name, offsetof(struct git_lazy, fn_##name)},
	GIT_LAZY_FUNCS(GIT_LAZY_ENTRY)
#undef GIT_LAZY_ENTRY
};

/*
 * RTLD_GLOBAL: tls_defer.c finds the real mbedTLS and libssh2 functions
 * with dlsym(RTLD_NEXT), which searches only the global scope. Calls from
 * libgit2 to those functions still bind to the executable's definitions
 * first, as the executable exports them (vcs/meson.build).
 */
static int load_locked(void)
{
	void *h = dlopen(library, RTLD_LAZY | RTLD_GLOBAL);

	if (!h)
		return err_set(ERR_GENERIC, "cannot load libgit2 (%s): %s", library, dlerror());
	for (size_t i = 0; i < ARRAY_SIZE(lazy_syms); i++) {
		void *fn = dlsym(h, lazy_syms[i].name);

		if (!fn)
			return err_set(ERR_GENERIC, "cannot load libgit2 (%s): no %s in it",
				       library, lazy_syms[i].name);
		*(void **)((char *)&git_lazy_table + lazy_syms[i].offset) = fn;
	}
	/* After the table: a thread that sees it set sees the table full. */
	git_lazy_loaded = true;
	return 0;
}

int git_lazy_load(void)
{
	int ret = 0;

	if (git_lazy_loaded)
		return 0;
	pthread_mutex_lock(&load_lock);
	if (!git_lazy_loaded)
		ret = load_locked();
	pthread_mutex_unlock(&load_lock);
	return ret;
}

void git_lazy_set_library(const char *soname)
{
	library = soname ? soname : VELES_LIBGIT2_SONAME;
}
