/*
 * The job matrix (docs/config.md): commands x arguments x workloads x
 * collectors, each job postprocessed in order and stored as a pending (or
 * registered) profile. Workloads are literal words or the id of a
 * generator, which turns one job into a run per workload size merged into
 * one profile whose resources carry the size as "structure-unit-size".
 */
#ifndef RUN_RUN_H
#define RUN_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "collect/collector.h"

struct config;
struct postproc;
struct profile;
struct store;
struct run_batch;

enum run_gen_type { GEN_INTEGER, GEN_STRING, GEN_TEXTFILE, GEN_EXTERNAL, GEN_SINGLETON };

struct run_generator {
	char *id;
	enum run_gen_type type;
	long min, max, step; /* the workload sizes: min, min+step, ... <= max */
	char *command;	     /* GEN_EXTERNAL: a shell command printing the workload */
	char *value;	     /* GEN_SINGLETON: the one workload */
	bool unsized;	     /* GEN_SINGLETON of a value that is no size */
};

/* A collector or postprocessor with its options as argv (argv[0] = name). */
struct run_step {
	char *name;
	char **argv; /* NULL-terminated */
	int argc;
	const struct postproc *pp; /* postprocessors: parsed once */
	void *opts;
};

struct run_matrix {
	char **cmds, **args, **workloads, **pre_run;
	size_t ncmds, nargs, nworkloads, npre_run;
	struct run_step *collectors, *postprocs;
	size_t ncollectors, npostprocs;
	struct run_generator *gens;
	size_t ngens;
	bool register_after_run;
};

struct run_job {
	const char *cmd;
	const char *args;		 /* "" when none */
	const char *workload;		 /* literal words, a generator's id, or "" */
	const struct run_generator *gen; /* the generator @workload names, or NULL */
	const struct run_step *collector;
};

/*
 * Reads the matrix from @cfgs, nearest first: each top-level part (cmds,
 * args, ..., generators.workload) comes from the first file that sets it.
 * Unknown keys and malformed parts are "FILE:LINE:COL: ..." errors.
 */
int run_matrix_load(struct config *const *cfgs, size_t n, struct run_matrix **out);
/* The matrix of the project at @root: its local, tracked and user files
 * (project/project_config.h); @root NULL: the user's file alone. */
int run_matrix_load_project(const char *root, struct run_matrix **out);
struct run_matrix *run_matrix_new(void);
void run_matrix_free(struct run_matrix *m);
/* Adds a postprocessor from argv (argv[0] its name), parsing its options. */
int run_matrix_add_postproc(struct run_matrix *m, int argc, char **argv);
/* Adds a collector from argv (argv[0] its name). */
void run_matrix_add_collector(struct run_matrix *m, int argc, char **argv);
/* Appends a copy of @s to the list *@v of *@n strings. */
void run_strv_add(char ***v, size_t *n, const char *s);
/* The generator called @id, or NULL. */
const struct run_generator *run_matrix_generator(const struct run_matrix *m, const char *id);

/* cmds x args x workloads x collectors in that nesting order; caller
 * frees *@out (the jobs point into @m). */
size_t run_matrix_expand(const struct run_matrix *m, struct run_job **out);

/*
 * A params map at @prefix ("collectors.0.params") as options: {repeat: 10}
 * is "--repeat=10", a list repeats the option, true is the bare flag, false
 * leaves it out, and underscores become hyphens. Appended to *@argv.
 */
int run_params_argv(const struct config *c, const char *prefix, char ***argv, int *argc);
/*
 * Checks each param at @prefix on its own: @check gets {@name, option}
 * and returns 0 or an error; the first error is "FILE:LINE:COL: 'KEY':
 * message" at the param's key.
 */
int run_params_check(const struct config *c, const char *prefix, const char *name,
		     int (*check)(int argc, char **argv));
/* Splits @s into words as a shell would (quotes and backslashes, no
 * expansion); ERR_INVALID on an unclosed quote. */
int run_split_words(const char *s, char ***words, int *n);
void run_strv_free(char **v);

/* ---- generators ---- */

/* Reads generators.workload.N from @c; checks each generator's fields. */
int run_generators_load(const struct config *c, struct run_generator **out, size_t *n);
void run_generators_free(struct run_generator *g, size_t n);
/* The sizes @g yields, in order; caller frees. */
size_t run_generator_sizes(const struct run_generator *g, long **sizes);
/*
 * The workload argument of size @size: the integer, a string of @size
 * characters, the path of a text file of @size lines made in @tmpdir, or
 * the first line an external command prints. Caller frees *@out.
 */
int run_generator_workload(const struct run_generator *g, long size, const char *tmpdir,
			   char **out);

/* ---- running ---- */

struct run_env {
	const char *jobs_dir; /* absolute: the commands may run elsewhere */
	const char *logs_dir;
	const char *origin;	 /* the version measured (full id), or NULL */
	struct store *store;	 /* register each profile here, or NULL: pending */
	struct run_batch *batch; /* writes pending profiles (batch.h), or NULL:
				  * the collector writes each itself */
	bool quiet_collectors;
	/* When set, each finished profile is handed to take() (which owns it
	 * from then on) instead of being written or registered. */
	int (*take)(struct profile *p, void *arg);
	void *take_arg;
	/* How profiles are named (format.output_profile_template), or NULL:
	 * BIN-COLLECTOR-WORKLOAD-TIMESTAMP. */
	const char *name_template;
	/* Where the collectors' summaries, notes and progress go (see
	 * collect/collector.h), and the postprocessors' notes, each a
	 * COLLECT_MSG_WARN; NULL: nowhere. */
	void (*message)(void *arg, enum collect_msg kind, const char *text);
	void *message_arg;
};

struct run_result {
	bool ok;
	char *profile; /* written (pending) profile path, or NULL */
	bool registered;
	char *error; /* why the job failed */
	double seconds;
};

/* Runs one job: collects (per workload size for a generator), applies the
 * postprocessors in order, writes the profile and registers it when asked.
 * Returns ERR_INTERRUPTED on Ctrl-C, else 0 with @r saying how it went. */
int run_job_run(const struct run_env *env, const struct run_matrix *m, const struct run_job *job,
		struct run_result *r);
void run_result_release(struct run_result *r);
/* Runs each execute.pre_run command with /bin/sh in the current directory;
 * the first that fails is the error. */
int run_pre_run(const struct run_matrix *m);

/* A run's message callback, given the postprocessors' notes. */
struct run_notes {
	void (*message)(void *arg, enum collect_msg kind, const char *text);
	void *message_arg;
};
/* A postproc_env's receiver for @notes (a struct run_notes): the note
 * passed on as a COLLECT_MSG_WARN. */
void run_note(void *notes, const char *text);
/* Applies @m's postprocessors to @p in order, their notes to @n (NULL or
 * no callback: nowhere); an error names the postprocessor. */
int run_postprocess(const struct run_matrix *m, struct profile *p, const struct run_notes *n);

/* ---- other versions ---- */

/*
 * A detached checkout of version @rev_id (a full id) in a new temporary
 * git worktree of @repo in $TMPDIR (util/tmpdir.h: this process owns it);
 * *@dir is its path and *@name git's name for it. run_worktree_remove()
 * prunes it: the directory, git's record of it, and the branch libgit2
 * needed to make it, if still there.
 */
struct git_repository;
int run_worktree_add(struct git_repository *repo, const char *rev_id, char **dir, char **name);
int run_worktree_remove(struct git_repository *repo, const char *dir, const char *name);
/* Removes what a veles killed while it ran in a temporary worktree left:
 * the worktree (git's record and the directory) and its branch. The first
 * run_worktree_add() of a process does it too. */
void run_worktree_sweep(struct git_repository *repo);

/*
 * A version checked out and built, ready to measure (checkout.c): `run
 * matrix -m`, `check --collect-missing`, `check --remeasure` and `bisect`
 * all run their commands this way, in the checkout's project root (where
 * .veles/ is in the user's tree: it may be a subdirectory of the git work
 * tree).
 *
 * The commands run where they are started, so this is the one place the
 * library changes the current directory: into a checkout and back to the
 * directory it was entered from, never anywhere else.
 */
struct run_checkout {
	char id[41];
	char *dir;  /* the temporary worktree */
	char *name; /* git's name for it */
	char *root; /* the project root inside it */
};

/* Shell commands that build a checkout, run in its root in order. */
struct run_build {
	char *const *cmds;
	size_t n;
	const char *what; /* "pre_run", "the build": names them in errors */
	bool quiet;	  /* their output to /dev/null */
};

/* Checks out @rev_id (a full id) for the project at @project_root (an
 * absolute path in @repo's work tree) and runs @build there (NULL: none).
 * On failure nothing is left behind. */
int run_checkout_open(struct git_repository *repo, const char *project_root, const char *rev_id,
		      const struct run_build *build, struct run_checkout *co);
/* Removes the worktree; @co may be one that failed to open, or zeroed. */
int run_checkout_close(struct git_repository *repo, struct run_checkout *co);
/* Makes @co's root the current directory; run_checkout_leave(@home)
 * changes back. */
int run_checkout_enter(const struct run_checkout *co);
int run_checkout_leave(const char *home);
/*
 * The whole of it: open (and build), enter, @fn(@co, @arg), leave, close.
 * The current directory is always restored and the worktree always
 * removed, after an error or a Ctrl-C too; @fn's error comes first.
 */
int run_in_checkout(struct git_repository *repo, const char *project_root, const char *rev_id,
		    const struct run_build *build,
		    int (*fn)(const struct run_checkout *co, void *arg), void *arg);

#endif
