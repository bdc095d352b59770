/*
 * What the tests of libveles's public header share: a profile of
 * tests/data/profiles/ loaded through it.
 */
#ifndef TESTS_API_TESTLIB_H
#define TESTS_API_TESTLIB_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "veles.h"

/* tests/data/profiles/@name; the test fails when it does not load. */
static inline veles_profile *load_data(const char *name)
{
	const char *src = getenv("VELES_SRCDIR");
	char path[4096];
	veles_profile *p = NULL;

	snprintf(path, sizeof(path), "%s/tests/data/profiles/%s", src ? src : ".", name);
	assert_int_equal(veles_profile_load(path, &p), 0);
	return p;
}

#endif
