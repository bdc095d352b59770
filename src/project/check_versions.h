/*
 * A check's orchestration (`veles check`, veles_check_versions): two
 * profiles compared into a report, or each profile of a version paired
 * with the profile of the same configuration in its parents (or any base
 * versions) and compared; a profile without one is recorded as having no
 * baseline, after --collect-missing had its chance to measure it.
 */
#ifndef PROJECT_CHECK_VERSIONS_H
#define PROJECT_CHECK_VERSIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "analyze/check_report.h"
#include "analyze/strategy.h"

struct profile;
struct store;
struct vcs;

struct check_run {
	struct check_opts co;
	/* Both sides' environments, before a pair is compared: 0, or an
	 * error that stops the check (strict-env); NULL: not looked at. */
	int (*env_check)(void *arg, const struct profile *a, const char *an,
			 const struct profile *b, const char *bn);
	/* When target profile @name has no match in the first base version
	 * @base: measure it there and register it. 0 when it did (the base
	 * is loaded again), 1 when nothing ran, or an error. NULL: never. */
	int (*collect)(void *arg, const struct profile *target, const char *name, const char *base);
	/* A warning (the collected profile did not match after all). */
	void (*warn)(void *arg, const char *msg);
	void *arg;
};

/* Compares @base with @target into a new pair of @r (its names and
 * configuration filled; the versions and ids are the caller's). */
int check_run_pair(const struct check_run *c, struct check_report *r, const struct profile *base,
		   const char *base_name, const struct profile *target, const char *target_name);
/*
 * Pairs every profile registered to version @target (a full id) with its
 * configuration's profile in each of @bases (at most 4 used) in @s, and
 * compares each pair into @r; the unmatched ones are recorded.
 */
int check_run_version(const struct check_run *c, struct store *s, const char *target,
		      char (*bases)[41], size_t nbases, struct check_report *r);
/* check_run_version() on every version reachable from HEAD, each against
 * its parents. */
int check_run_all(const struct check_run *c, struct vcs *v, struct store *s,
		  struct check_report *r);

#endif
