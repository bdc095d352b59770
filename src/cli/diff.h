/* veles diff: its options, and the views it writes (diff-views.c). */
#ifndef CLI_DIFF_H
#define CLI_DIFF_H

#include <regex.h>
#include <stdbool.h>

#include "analyze/diff_join.h"
#include "view/diff_rows.h"

struct profile;

struct diff_opts {
	struct diff_join_opts jo;
	long top;
	enum diff_format fmt;
	const char *filter, *output;
	const char *rev[2]; /* -m: both sides, or one each when given twice */
	int nrev;
	bool flamegraph, negate, force, strict_env, report;
	regex_t re;
};

/* Each prints (or writes the file) and returns the exit status. */
int diff_flamegraph(const struct diff_opts *o, struct profile *p[2], const char *names[2]);
int diff_report(const struct diff_opts *o, struct profile *p[2], const char *names[2]);
int diff_loaded(const struct diff_opts *o, struct profile *p[2], const char *names[2]);
void diff_bounds(const struct diff_opts *o, struct profile *p[2], const char *names[2]);

#endif
