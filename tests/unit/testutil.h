/* What the unit tests share: one temporary directory per test program. */
#ifndef TESTS_UNIT_TESTUTIL_H
#define TESTS_UNIT_TESTUTIL_H

#include <stdlib.h>

#include "util/common.h"
#include "util/fsutil.h"

/* Made by tmp_setup() and removed, with all inside it, by tmp_teardown():
 * use them as cmocka's group fixtures. */
static char tmp_base[] = "/tmp/veles-test-XXXXXX";

static inline int tmp_setup(void **state)
{
	UNUSED(state);
	return mkdtemp(tmp_base) ? 0 : -1;
}

static inline int tmp_teardown(void **state)
{
	UNUSED(state);
	return rm_rf(tmp_base);
}

/* A new, empty directory inside tmp_base; the caller frees the path. */
static inline char *tmp_fresh_dir(void)
{
	static unsigned serial;
	char *d = xasprintf("%s/d%u", tmp_base, serial++);

	if (mkdir_p(d) < 0)
		abort();
	return d;
}

#endif
