/*
 * What `veles check` found, and how it prints it: a tree by location for
 * the terminal, or JSON, markdown and JUnit XML for CI.
 */
#ifndef CLI_CHECK_H
#define CLI_CHECK_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "analyze/degrade.h"

struct profile;
struct run_matrix;

enum check_format { CHECK_TEXT, CHECK_JSON, CHECK_MARKDOWN, CHECK_JUNIT };

/* One compared pair of profiles and what each location did. */
struct check_pair {
	char *baseline_name, *target_name;
	char baseline_version[41], target_version[41]; /* "" for files */
	char *config; /* "cmd args (workload) collector", for headings */
	struct change_list changes;
};

/* A target profile that no baseline profile matched. */
struct check_unmatched {
	char *name, *config;
	char version[41];
};

struct check_report {
	struct check_pair *pairs;
	size_t n, cap;
	struct check_unmatched *unmatched;
	size_t without_baseline, unmatched_cap; /* without_baseline: unmatched's count */
	bool strict;				/* a MaybeDegradation fails too (--strict) */
};

struct check_pair *check_report_add(struct check_report *r);
/* Records target profile @name (of @version, configuration title @config)
 * as having no baseline. */
void check_report_unmatched(struct check_report *r, const char *name, const char *config,
			    const char *version);
void check_report_free(struct check_report *r);
/* Whether a change of class @c fails the check (sets the exit status):
 * a sure degradation, or with --strict a maybe too. */
bool check_fails(const struct check_report *r, enum change_class c);
/* How many changes fail the check. */
size_t check_report_failing(const struct check_report *r);
/* Counts over every change: degradations, optimizations, the rest. */
void check_report_counts(const struct check_report *r, size_t *deg, size_t *opt, size_t *other);

/* "type cmd args (workload) collector [postprocessors]": the configuration
 * that pairs a profile with its baseline (collector parameters such as
 * the repetition count do not count). Caller frees. */
char *profile_config_key(const struct profile *p);
/* How a configuration reads in a heading: "./prog 100 · time". */
char *profile_config_title(const struct profile *p);

/* The profiles of one version, loaded, with their configuration keys. */
struct version_profiles {
	struct store_entry *e;
	struct profile **p;
	char **key;
	size_t n;
};

struct cli_ctx;
int version_profiles_load(struct cli_ctx *ctx, const char *version, struct version_profiles *v);
void version_profiles_free(struct version_profiles *v);
/* The last profile (by name: the newest) of @v with configuration @key, or -1. */
ssize_t version_profiles_find(const struct version_profiles *v, const char *key);

/* The most methods degradation.strategies may apply to one profile. */
#define CHECK_MAX_METHODS 16
#define CHECK_RULE_FIELDS 5 /* type, cmd, workload, collector, postprocessor */

/* degradation.strategies, read once per command. */
struct check_rule {
	const char *method;		/* a name from check_method_names() */
	char *field[CHECK_RULE_FIELDS]; /* NULL: any */
};

struct check_strategies {
	bool all; /* degradation.apply: all */
	struct check_rule *rules;
	size_t n;
};

/* Reads and checks config.yml's strategies (and rejects unknown keys)
 * before any work: ERR_INVALID for an unknown method or apply value. */
int check_strategies_load(const struct cli_ctx *ctx, struct check_strategies *s);
void check_strategies_free(struct check_strategies *s);
/*
 * The check methods for target profile @p: the first matching rule's, or
 * every matching rule's with apply: all; stat, or int for a non-time
 * profile with models, when none matches.
 */
void check_methods_for(const struct check_strategies *s, const struct profile *p,
		       const char *methods[CHECK_MAX_METHODS], size_t *n);

/* What --collect-missing may run. */
struct check_collect {
	bool yes;		   /* --yes: a profile's own recipe may run too */
	bool ask;		   /* stdin and stderr are terminals: ask before one runs */
	bool quiet;		   /* no progress line */
	struct run_matrix *matrix; /* the user's job matrix, read on first use */
};

/*
 * --collect-missing: measures the configuration of @target (named
 * @target_name) on version @parent, in a temporary worktree after
 * execute.pre_run, and registers the profile with @parent. What runs is
 * the job of the user's matrix that makes that configuration; without one,
 * the profile's own recipe, but only with --yes or the user's answer.
 * Returns 0 when it collected, 1 when it ran nothing (said on stderr), or
 * a negative error.
 */
int check_collect_missing(struct cli_ctx *ctx, struct check_collect *cc,
			  const struct profile *target, const char *target_name,
			  const char *parent);
void check_collect_release(struct check_collect *cc);

int check_parse_format(const char *arg, enum check_format *out);
void check_print(FILE *f, const struct check_report *r, enum check_format fmt, bool colour);

#endif
