/*
 * `veles run matrix | run job` below the command line: which versions a
 * run covers (-m REV, A..B, --crawl-parents) and every job of a matrix
 * run on each of them, in a temporary worktree per version, or in the
 * current directory. What happens is told through callbacks.
 */
#ifndef RUN_JOBS_H
#define RUN_JOBS_H

#include <stdbool.h>
#include <stddef.h>

#include "collect/collector.h"

struct git_repository;
struct run_job;
struct run_matrix;
struct run_result;
struct store;
struct vcs;

/*
 * The full ids of the versions @revs name, each once, in the order first
 * named: a REV (with @crawl, and its ancestors: at most @depth of them,
 * 0 all), or A..B, the versions B has and A has not as `git log A..B`
 * (at most @depth + 1; an empty side is HEAD). Appended to *@ids.
 */
int run_versions_resolve(struct vcs *vcs, char *const *revs, size_t n, bool crawl,
			 unsigned long depth, char ***ids, size_t *nids);

/* What `run job` was given, in order: each collector and postprocessor
 * may have a params text (a YAML map, "repeat: 3"; "" or past the end:
 * none). */
struct run_job_spec {
	char **cmds, **args, **loads, **cols, **pps;
	size_t ncmds, nargs, nloads, ncols, npps;
	char **col_params, **pp_params;
	size_t ncol_params, npp_params;
};
void run_job_spec_release(struct run_job_spec *s);
/*
 * The matrix of @s (cmds x args x workloads x collectors, then the
 * postprocessors); the generators, pre_run and register_after_run are
 * taken from @cfg (the user's config), so a workload may name a generator.
 */
int run_matrix_from_spec(struct run_matrix *cfg, const struct run_job_spec *s,
			 struct run_matrix **out);

/* How the jobs went, counted over every version. */
struct run_tally {
	size_t njobs; /* jobs per version */
	size_t total; /* jobs over all versions */
	size_t done, ok, failed;
};

struct run_jobs_opts {
	const char *jobs_dir, *logs_dir; /* absolute */
	const char *project_root;	 /* absolute: where commands run (or its copy) */
	struct git_repository *repo;	 /* for other versions; NULL: none */
	struct store *store;		 /* registers the profiles, or NULL: pending */
	const char *name_template;	 /* see run_env */
	void (*message)(void *arg, enum collect_msg kind, const char *text);
	void *message_arg;
	/* Before job @t->done + 1 of @t->total starts, and once it ended
	 * (also when pre_run failed it); may be NULL. */
	void (*start)(void *arg, const struct run_job *job, const struct run_tally *t);
	void (*done)(void *arg, const char *version, const struct run_job *job,
		     const struct run_result *res, const struct run_tally *t);
	void *arg;
};

/* 0, or ERR_INVALID when @m makes no job (it lacks cmds or collectors). */
int run_jobs_any(const struct run_matrix *m);
/*
 * Runs every job of @m on each version of @ids (full ids), each checked
 * out in a temporary worktree; with @nids 0 on @head (a full id, or NULL:
 * no version yet) in @o->project_root (NULL: the current directory). A failing job (or pre_run) is
 * counted and the others still run. Returns 0, ERR_INTERRUPTED after
 * Ctrl-C (what finished is kept), or another error that stopped the run.
 */
int run_jobs_all(const struct run_matrix *m, char *const *ids, size_t nids, const char *head,
		 const struct run_jobs_opts *o, struct run_tally *t);

/*
 * The jobs of @m on the working tree of @p (its HEAD), in the current
 * directory, as run_jobs_all() runs them there; first what the user should
 * know, through p->warn (no version yet, uncommitted changes). ERR_INVALID
 * when @m makes no job, or asks to register the profiles without a
 * version to register them with.
 */
struct project;
int run_jobs_head(const struct run_matrix *m, struct project *p, const struct run_jobs_opts *o,
		  struct run_tally *t);

#endif
