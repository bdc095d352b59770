/*
 * check --remeasure: a version and its baseline (the parent) measured now,
 * side by side, instead of trusting numbers taken at other times. Both are
 * checked out and built in temporary worktrees, then each job of the
 * matrix runs in interleaved rounds (rmit.h): every round runs both once
 * in a random order, one run each for the time collector. Each round
 * gives, per location, the difference ln(target / baseline), and the
 * sequential test (analyze/seqtest.h) stops the rounds once every
 * location's answer is sure or the budget is spent. The rounds of each
 * side become one pending profile of that version in the jobs directory,
 * ready to add.
 */
#ifndef RUN_REMEASURE_H
#define RUN_REMEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/degrade.h"
#include "run/rmit.h"
#include "run/run.h"

struct git_repository;

struct remeasure_opts {
	struct rmit_budget budget;
	uint64_t seed;
	const char *metric;	       /* what decides (--on), or NULL: the most stable
					* metric the rounds give (analyze/metric.h) */
	struct check_params cp;	       /* alpha, min_effect, severe, total */
	const struct run_build *build; /* builds each checkout, or NULL */
	const char *project_root;      /* absolute, in the repository's work tree */
	const char *jobs_dir, *logs_dir;
	/* A line of progress (a look's result), or NULL for none. */
	void (*progress)(void *arg, const char *line);
	void *progress_arg;
	/* What the collectors of the rounds say (a note, a failing command's
	 * warning; see collect/collector.h), each line once however many
	 * rounds repeat it; NULL: nowhere. */
	void (*message)(void *arg, enum collect_msg kind, const char *text);
	void *message_arg;
};

/* One job of the matrix, remeasured. */
struct remeasure_result {
	char *profile[2];	    /* the pending profiles written: baseline, target */
	const char *metric;	    /* the metric that decided, or NULL: every location */
	size_t rounds;		    /* counted rounds */
	enum rmit_stop why;	    /* why they ended */
	struct change_list changes; /* per location, method "rmit" */
};

/*
 * Remeasures every job of @m on @base_id (the baseline) and @target_id.
 * *@out holds one result per job (caller frees with remeasure_free).
 * A job that fails (its command exits non-zero) is the error.
 */
int remeasure_run(struct git_repository *repo, const char *base_id, const char *target_id,
		  const struct run_matrix *m, const struct remeasure_opts *o,
		  struct remeasure_result **out, size_t *n);
void remeasure_free(struct remeasure_result *r, size_t n);

#endif
