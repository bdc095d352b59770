/* veles log's views beyond the version list. */
#ifndef CLI_LOG_H
#define CLI_LOG_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/cli.h"

/*
 * --perf KEY: the series of each location matching KEY (exactly or as a
 * substring) over the versions reachable from @from (at most @limit, 0 =
 * all), with change points; with @output (FILE.svg or FILE.html) the
 * chart instead. Neighbouring points measured in different environments
 * are warned about, or with @strict_env refused (exit 2). Returns the exit
 * status.
 */
int log_perf(struct cli_ctx *ctx, const char *from, size_t limit, const char *key,
	     enum out_format fmt, bool strict_env, const char *output);

#endif
