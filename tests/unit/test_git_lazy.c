/* vcs/git_lazy: a libgit2 that cannot be loaded is an error every call
 * returns (or a call that cannot happen without the library), never an
 * abort. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vcs/git_lazy.h"
#include <cmocka.h>

#include "testutil.h"
#include "util/common.h"
#include "vcs/vcs.h"

#define MISSING "libveles-test-no-such-git.so.0"

static void assert_load_error(void)
{
	assert_non_null(strstr(err_msg(), "cannot load libgit2 (" MISSING "): "));
}

/* Runs first, in a process that never loaded libgit2. */
static void test_unloadable(void **state)
{
	char *d = tmp_fresh_dir();
	struct vcs *v = NULL;
	git_oid id;
	git_repository *repo = NULL;

	UNUSED(state);
	git_lazy_set_library(MISSING);
	/* No object can exist: freeing nothing is nothing. */
	git_repository_free(NULL);
	git_commit_free(NULL);
	assert_null(git_error_last());
	assert_int_equal(git_libgit2_shutdown(), 0);
	/* Calls that need no object load first and return the error. */
	err_clear();
	assert_int_equal(git_oid_fromstr(&id, "0123456789012345678901234567890123456789"),
			 GIT_ERROR);
	assert_load_error();
	err_clear();
	assert_int_equal(git_repository_open(&repo, d), GIT_ERROR);
	assert_null(repo);
	assert_load_error();
	assert_int_equal(git_libgit2_init(), GIT_ERROR);
	assert_false(git_lazy_loaded);
	/* The way every front end comes in. */
	err_clear();
	assert_int_equal(vcs_open(d, true, &v), ERR_GENERIC);
	assert_null(v);
	assert_load_error();
	free(d);
}

#define HEX "0123456789012345678901234567890123456789"

static void *first_call(void *arg)
{
	git_oid id;
	char hex[GIT_OID_HEXSZ + 1];

	UNUSED(arg);
	if (git_oid_fromstr(&id, HEX) != 0)
		return NULL;
	return strcmp(git_oid_tostr(hex, sizeof(hex), &id), HEX) == 0 ? arg : NULL;
}

/* The library veles was built against loads on the first call that needs
 * it, however many threads make that call at once (the server's do). */
static void test_loads_on_demand(void **state)
{
	pthread_t t[4];
	int mark[4];
	void *got;

	UNUSED(state);
	git_lazy_set_library(NULL);
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		assert_int_equal(pthread_create(&t[i], NULL, first_call, &mark[i]), 0);
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		assert_int_equal(pthread_join(t[i], &got), 0);
		assert_ptr_equal(got, &mark[i]);
	}
	assert_true(git_lazy_loaded);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unloadable),
		cmocka_unit_test(test_loads_on_demand),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
