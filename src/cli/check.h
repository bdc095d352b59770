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

struct buf;
struct profile;
struct run_matrix;

enum check_format { CHECK_TEXT, CHECK_JSON, CHECK_MARKDOWN, CHECK_JUNIT };

/* One compared pair of profiles and what each location did. */
struct check_pair {
	char *baseline_name, *target_name;
	char baseline_version[41], target_version[41]; /* "" for files */
	char baseline_id[41], target_id[41];	       /* the profiles' ids; "" for files */
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
	/* The mildest class that fails the check (--fail-on): CH_DEGRADATION
	 * by default, CH_MAYBE_DEGRADATION (--fail-on maybe, --strict) or
	 * CH_SEVERE_DEGRADATION (--fail-on severe). */
	enum change_class fail_from;
	bool verbose; /* the per-size table of locations compared size by size */
};

/* --fail-on maybe|degradation|severe into the mildest failing class. */
int check_parse_fail_on(const char *arg, enum change_class *out);
/* "maybe", "degradation" or "severe". */
const char *check_fail_on_name(enum change_class c);

struct check_pair *check_report_add(struct check_report *r);
/* Records target profile @name (of @version, configuration title @config)
 * as having no baseline. */
void check_report_unmatched(struct check_report *r, const char *name, const char *config,
			    const char *version);
void check_report_free(struct check_report *r);
/* Whether a change of class @c fails the check (sets the exit status):
 * a degradation at least as bad as r->fail_from. */
bool check_fails(const struct check_report *r, enum change_class c);
/* How many changes fail the check. */
size_t check_report_failing(const struct check_report *r);

/* Counts over every change, as the summary line says them. */
struct check_counts {
	size_t degradations;  /* Degradation, SevereDegradation, TotalDegradation */
	size_t maybe;	      /* MaybeDegradation */
	size_t optimizations; /* every optimization class, maybe ones too */
	size_t other;
	size_t failing; /* what fails the check: the exit status is 1 when not 0 */
};
void check_report_counts(const struct check_report *r, struct check_counts *c);
/*
 * The summary line: "1 degradation, 2 maybe degradations, 0
 * optimizations, 3 other results; 1 fails the check (--fail-on
 * degradation)", and "; N profiles had no baseline". The exit status
 * follows its last clause.
 */
void check_summary(struct buf *b, const struct check_report *r);

/*
 * One line naming what a compared pair lacks when its two sides share no
 * location (every result is NotInBaseline or NotInTarget) into @b; false
 * when they share one.
 */
bool check_pair_disjoint(const struct check_pair *p, struct buf *b);

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
#define CHECK_RULE_FIELDS 7 /* type, cmd, workload, collector, postprocessor, args, params */

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
/* A method named ours ("aat") or Perun's way ("average_amount_threshold"),
 * as its static name in check_method_names(); NULL when unknown. */
const char *check_method_canonical(const char *name);
int check_strategies_load(const struct cli_ctx *ctx, struct check_strategies *s);
void check_strategies_free(struct check_strategies *s);
/*
 * The check methods for target profile @p: every matching rule's (each
 * once), or the first one's with apply: first; stat, or int for a
 * non-time profile with models, when none matches.
 */
void check_methods_for(const struct check_strategies *s, const struct profile *p,
		       const char *methods[CHECK_MAX_METHODS], size_t *n);

/* What --collect-missing may run. */
struct check_collect {
	bool yes;		   /* --yes: a profile's own recipe may run too */
	bool ask;		   /* stdin and stderr are terminals: ask before one runs */
	bool quiet;		   /* no progress line */
	bool log;		   /* degradation.log_collect: output to .veles/logs/ */
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
