/*
 * What the tests of check's verdicts share: a change of a change_list
 * found by its location.
 */
#ifndef TESTS_CHANGE_TESTLIB_H
#define TESTS_CHANGE_TESTLIB_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/degrade.h"

/* The change at @loc; the test fails when there is none. */
static inline const struct change *change_at(const struct change_list *l, const char *loc)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].location, loc) == 0)
			return &l->v[i];
	fail_msg("no change at %s", loc);
	return NULL;
}

#endif
