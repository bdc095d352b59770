/* libgit2 loaded on first use (git_lazy.h says why). */
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>

/* Here the names must stay names: no call macros. */
#define GIT_LAZY_NO_CALL_MACROS
#include "util/common.h"
#include "vcs/git_lazy.h"

struct git_lazy git_lazy_table;
bool git_lazy_loaded;

static const struct {
	const char *name;
	size_t offset;
} lazy_syms[] = {
#define GIT_LAZY_ENTRY(name) {#name, offsetof(struct git_lazy, name)},
	GIT_LAZY_FUNCS(GIT_LAZY_ENTRY)
#undef GIT_LAZY_ENTRY
};

/*
 * RTLD_GLOBAL: tls_defer.c finds the real mbedTLS and libssh2 functions
 * with dlsym(RTLD_NEXT), which searches only the global scope. Calls from
 * libgit2 to those functions still bind to the executable's definitions
 * first, as the executable exports them (vcs/meson.build).
 */
int git_lazy_load(void)
{
	void *h;
	size_t i;

	if (git_lazy_loaded)
		return 0;
	/* VELES_LIBGIT2_SONAME: the soname of the libgit2 we compiled against
	 * (src/vcs/meson.build). */
	h = dlopen(VELES_LIBGIT2_SONAME, RTLD_LAZY | RTLD_GLOBAL);
	if (!h)
		return err_set(ERR_GENERIC, "cannot load libgit2 (%s): %s", VELES_LIBGIT2_SONAME,
			       dlerror());
	for (i = 0; i < ARRAY_SIZE(lazy_syms); i++) {
		void *fn = dlsym(h, lazy_syms[i].name);

		if (!fn)
			return err_set(ERR_GENERIC, "cannot load libgit2 (%s): no %s in it",
				       VELES_LIBGIT2_SONAME, lazy_syms[i].name);
		*(void **)((char *)&git_lazy_table + lazy_syms[i].offset) = fn;
	}
	git_lazy_loaded = true;
	return 0;
}

/*
 * Every libgit2 object comes from a repository vcs_open() opened, and
 * vcs_open() loads the library first and returns its error: a git_* call
 * therefore finds the table filled. One that does not (a caller that
 * skipped vcs_open(), such as a unit test calling git_libgit2_init()) has
 * it loaded here; there is no error to return from inside a call, so a
 * library that cannot load then is a broken invariant, not a user's error.
 */
const struct git_lazy *git_lazy_require(void)
{
	if (git_lazy_load() < 0)
		abort();
	return &git_lazy_table;
}
