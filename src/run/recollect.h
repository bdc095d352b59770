/*
 * `check --collect-missing` below the command line: a parent version
 * lacks a profile of some configuration, so it is measured there, in a
 * temporary worktree built with execute.pre_run, by the job of the user's
 * matrix that makes that configuration, or by the profile's own recipe
 * (its command, arguments, collector parameters and postprocessors; the
 * front end asks the user first: the recipe may come from anyone). The
 * new profile is registered with the parent.
 */
#ifndef RUN_RECOLLECT_H
#define RUN_RECOLLECT_H

#include <stdbool.h>
#include <stddef.h>

#include "collect/collector.h"

struct git_repository;
struct profile;
struct run_job;
struct run_matrix;
struct store;

/* The job of @jobs (@n of @m's) that makes profiles of @p's
 * configuration (command, arguments, workload, collector and the
 * postprocessors by name, in order), or NULL. */
const struct run_job *recollect_find_job(const struct run_matrix *m, const struct run_job *jobs,
					 size_t n, const struct profile *p);
/* The `veles collect` argv (argv[0] the collector) that replays @p's
 * recipe, with @output_handling ("--output-handling=suppress") after the
 * collector; appended to *@argv. */
int recollect_recipe_argv(const struct profile *p, const char *output_handling, char ***argv,
			  size_t *n);

struct recollect {
	struct git_repository *repo;
	const char *project_root; /* absolute */
	const char *logs_dir;
	struct store *store;	      /* where the profile is registered */
	const struct run_matrix *m;   /* pre_run, and the job's matrix */
	const struct run_job *job;    /* or NULL: @target's own recipe */
	const struct profile *target; /* the profile whose configuration is missing */
	bool capture; /* the commands' output to logs_dir (and echoed), not suppressed */
	void (*message)(void *arg, enum collect_msg kind, const char *text);
	void *message_arg;
};

/* Measures r->target's configuration on version @parent (a full id) and
 * registers the profile with it there. */
int recollect_run(const struct recollect *r, const char *parent);

#endif
