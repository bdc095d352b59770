/*
 * A collector run end to end, as the unit tests of collect_main share it:
 * a fresh temporary project (.veles/jobs, .veles/logs) for the collector
 * to write into, and what it says heard by kind.
 */
#ifndef TESTS_UNIT_COLLECT_WORLD_H
#define TESTS_UNIT_COLLECT_WORLD_H

#include <stddef.h>

#include "collect/collector.h"
#include "util/buf.h"

/* What the collector said, by kind (enum collect_msg), each message ended
 * by "|"; n counts them. */
struct collect_heard {
	struct buf said[3];
	int n[3];
};

struct collect_world {
	char *root; /* removed, with all inside it, by the teardown */
	char *jobs; /* root/.veles/jobs: not made until a profile is */
	char *logs; /* root/.veles/logs */
	struct collect_heard h;
	/* quiet, writing to jobs and logs, heard into h; a test may change
	 * it (origin, quiet, message) between collections */
	struct collect_env env;
};

/* cmocka fixtures (per test or per group): *state is the collect_world.
 * The root goes under $VELES_TEST_TMP (else /tmp). */
int collect_world_setup(void **state);
int collect_world_teardown(void **state);

/* collect_main over the NULL-terminated strings after @w (at most 31). */
int collect_run(struct collect_world *w, ...);

/* The env's message callback: records into the collect_heard at @arg. */
void collect_hear(void *arg, enum collect_msg kind, const char *text);

/* Forgets what was heard. */
void collect_heard_reset(struct collect_heard *h);

#endif
