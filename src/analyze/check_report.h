/*
 * What a check found (`veles check`, the API's veles_check): the compared
 * pairs of profiles with what each location did, the target profiles
 * without a baseline, and the decision whether the check fails.
 */
#ifndef ANALYZE_CHECK_REPORT_H
#define ANALYZE_CHECK_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "analyze/degrade.h"

struct buf;
struct profile;

/* One compared pair of profiles and what each location did. */
struct check_pair {
	char *baseline_name, *target_name;
	char baseline_version[41], target_version[41]; /* "" for files */
	char baseline_id[41], target_id[41];	       /* the profiles' ids; "" for files */
	char *config;	   /* "cmd args (workload) collector + postprocessors" */
	char *config_full; /* with the postprocessors' parameters (--verbose) */
	char *config_key;  /* what pairs profiles (profile_config_key) */
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
	bool verbose;	  /* the per-size table of locations compared size by size */
	size_t max_chars; /* markdown: cut to fit this many bytes; 0: no limit */
};

/* GitHub's limit on a comment is 65,536 characters; what a CI step adds
 * around the report fits in the rest. */
#define CHECK_MARKDOWN_MAX 60000

/* --fail-on maybe|degradation|severe into the mildest failing class. */
int check_parse_fail_on(const char *arg, enum change_class *out);
/* "maybe", "degradation" or "severe". */
const char *check_fail_on_name(enum change_class c);

struct check_pair *check_report_add(struct check_report *r);
/* A new pair of @r, of profiles @base_name and @target_name, titled after
 * @target's configuration (title, full title and key); its versions, ids
 * and changes are the caller's. */
struct check_pair *check_report_pair(struct check_report *r, const char *base_name,
				     const char *target_name, const struct profile *target);
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
/* How many results could not be judged (they carry a note); *@note is
 * one of those notes, or NULL. */
size_t check_report_unjudged(const struct check_report *r, const char **note);

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

/* The title of each pair (r->n of them, pointing into @r; free the
 * array): brief, but in full where two configurations would read alike,
 * and with r->verbose. */
const char **check_pair_titles(const struct check_report *r);

#endif
