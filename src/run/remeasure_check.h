/*
 * `check head --remeasure` below the command line: a version and its first
 * parent measured now, interleaved (run/remeasure.h), each job of the
 * project's matrix becoming a compared pair of a check report, named and
 * titled as `check head` pairs stored profiles (project/check_versions.h).
 */
#ifndef RUN_REMEASURE_CHECK_H
#define RUN_REMEASURE_CHECK_H

#include "run/remeasure.h"

struct check_report;
struct profile;
struct project;

struct remeasure_check {
	/* The budget, seed, metric, check parameters, progress and message
	 * as remeasure_run() takes them; the build (execute.pre_run) and the
	 * directories are the project's. o.progress also gets "building
	 * ... in temporary worktrees" first. */
	struct remeasure_opts o;
	/* Both sides' environments, before a pair is made (as check_run's):
	 * 0, or an error that stops the check; NULL: not looked at. */
	int (*env_check)(void *arg, const struct profile *a, const char *an,
			 const struct profile *b, const char *bn);
	/* For each job, how its rounds ended and where its two pending
	 * profiles are, a line each; NULL: not said. */
	void (*say)(void *arg, const char *line);
	void *arg;
};

/*
 * Remeasures version @id (a full id) of git project @p against its first
 * parent, job by job of the project's matrix, and adds a pair per job to
 * @r. The caller installs the signal handlers (util/spawn.h) around it.
 */
int remeasure_check(struct project *p, const char *id, const struct remeasure_check *c,
		    struct check_report *r);
/*
 * One remeasured job @res, of version @target_id against @base_id, as a
 * pair of @r: its two profiles loaded and their environments checked, the
 * pair named after its profiles and configuration, and @res's changes
 * moved into it; then c->say is told how it went.
 */
int remeasure_check_pair(const struct remeasure_check *c, const char *base_id,
			 const char *target_id, struct remeasure_result *res,
			 struct check_report *r);

#endif
