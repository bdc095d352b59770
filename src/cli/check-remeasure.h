/* check head --remeasure: the version and its parent measured now,
 * interleaved (src/run/remeasure.h), into a check report. */
#ifndef CLI_CHECK_REMEASURE_H
#define CLI_CHECK_REMEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/degrade.h"

struct check_report;
struct cli_ctx;

struct check_remeasure_args {
	size_t max_rounds;
	double max_seconds;
	uint64_t seed;
	const char *on; /* --on, or NULL */
	struct check_params cp;
	bool strict_env, quiet;
};

/* Remeasures version @id against its first parent, adding a pair per job
 * of the matrix to @r. 0, or -1 after printing the error. */
int check_remeasure(struct cli_ctx *ctx, const struct check_remeasure_args *a, const char *id,
		    struct check_report *r);

#endif
