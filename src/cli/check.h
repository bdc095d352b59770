/*
 * What `veles check` found, and how it prints it: a tree by location for
 * the terminal, or JSON, markdown and JUnit XML for CI.
 */
#ifndef CLI_CHECK_H
#define CLI_CHECK_H

#include <stdbool.h>
#include <stdio.h>

#include "analyze/degrade.h"

enum check_format { CHECK_TEXT, CHECK_JSON, CHECK_MARKDOWN, CHECK_JUNIT };

/* One compared pair of profiles and what each location did. */
struct check_pair {
	char *baseline_name, *target_name;
	char baseline_version[41], target_version[41]; /* "" for files */
	char *config; /* "cmd args (workload) collector", for headings */
	struct change_list changes;
};

struct check_report {
	struct check_pair *pairs;
	size_t n, cap;
	size_t without_baseline; /* target profiles no baseline profile matched */
};

struct check_pair *check_report_add(struct check_report *r);
void check_report_free(struct check_report *r);
/* Counts over every change: degradations, optimizations, the rest. */
void check_report_counts(const struct check_report *r, size_t *deg, size_t *opt, size_t *other);

int check_parse_format(const char *arg, enum check_format *out);
void check_print(FILE *f, const struct check_report *r, enum check_format fmt, bool colour);

#endif
