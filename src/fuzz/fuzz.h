/*
 * veles fuzz: performance fuzzing of a program's input (docs/cli/fuzz.md).
 *
 * From seed inputs it makes mutants (mutate.h), runs the program on each
 * and measures its cost (exec.h), keeps the mutants that cost more than
 * their parent, reach new code or pass an edge more often than before
 * (cover.h), and mutates the kept ones further, the costlier more often
 * (Perun's fitness intervals). It reports the costliest inputs against the
 * seeds, how the cost grows with the input's length (a profile and the
 * best regression model), and keeps crashes and hangs with their inputs.
 * Everything lives in an output directory, so a later run continues.
 */
#ifndef FUZZ_FUZZ_H
#define FUZZ_FUZZ_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fuzz/exec.h"

struct profile;

struct fz_progress {
	uint64_t runs;	       /* all sessions */
	uint64_t session_runs; /* this one */
	double elapsed;	       /* seconds of this session */
	double rate;	       /* runs a second, this session */
	size_t corpus;
	double worst_ratio; /* the costliest input's cost over the seeds' */
	uint64_t crashes, hangs;
	const char *phase; /* "calibrating", "resuming", "fuzzing", "re-measuring" */
	/* What the session measures, known from "fuzzing" on. */
	enum fz_metric metric;
	const char *metric_why; /* why not instructions, or NULL */
	bool coverage;		/* the program counts its edges */
	size_t edges_hit;
	uint64_t seed;
	double timeout;
	size_t max_size;
	double base_cost;
	bool resumed;
};

struct fz_options {
	char **argv; /* the command; "@@" or "%s" marks the input file */
	const char *const *inputs;
	size_t ninputs;
	const char *out_dir;
	const char *dict_path; /* or NULL */
	double time_limit;     /* seconds of this session; 0: none */
	uint64_t run_limit;    /* runs of this session; 0: none */
	uint64_t seed;
	bool seed_set;	       /* else a fresh one (said in the report) */
	double timeout;	       /* seconds; 0: from the seeds' time */
	size_t max_size;       /* bytes; 0: from the options below */
	double max_size_ratio; /* the largest seed times this; 0: unset */
	size_t max_size_increase;
	bool max_size_increase_set;
	enum fz_metric metric;
	bool feedback;		     /* false: plain random mutation of the seeds (a baseline) */
	bool coverage;		     /* false: ignore an instrumented build's edge counts */
	volatile sig_atomic_t *stop; /* set (by a signal handler) to stop early */
	/* Called about four times a second while it runs; may be NULL. */
	void (*progress)(const struct fz_progress *p, void *arg);
	void *progress_arg;
};

/* One of the costliest inputs found. */
struct fz_worst {
	char *path; /* its file in the output directory */
	size_t len;
	double cost;  /* median of the re-measured runs */
	double ratio; /* cost over the seeds' */
	uint64_t found_run;
	char *rules; /* the last mutations that made it */
};

struct fz_report {
	enum fz_metric metric;
	char *metric_why; /* why not instructions, or NULL */
	uint64_t seed;
	bool resumed;
	uint64_t runs, session_runs;
	double elapsed, session_elapsed;
	size_t nseeds, corpus;
	size_t dropped_seeds; /* seeds that crashed or hung, left out */
	double base_cost;     /* the costliest seed's median cost */
	double timeout;
	size_t max_size;
	bool coverage;	  /* the program counted edges */
	size_t edges_hit; /* edges reached by kept inputs */
	uint64_t crashes, hangs, session_crashes, session_hangs;
	bool interrupted; /* stopped by opts->stop */
	struct fz_worst *worst;
	size_t nworst;
	/* The best model of cost against length (worst-by-size points). */
	bool have_model;
	char *model;
	double model_r2;
	double power_exponent; /* b1 of the power model; NAN without one */
	struct profile *profile;
};

/* Runs a fuzzing session; 0 with @rep filled, or an error (bad options,
 * a program that cannot run, an output directory in use). */
int fz_run(const struct fz_options *o, struct fz_report *rep);
void fz_report_release(struct fz_report *rep);

/* The metric's unit for messages and the profile: "instructions", "s"... */
const char *fz_metric_unit(enum fz_metric m);

/*
 * Writes @p to @jobs_dir as BIN-fuzz-WORKLOAD-TIMESTAMP.perf, the way every
 * collector's profile is written; *@path gets its path.
 */
int fz_save_profile(struct profile *p, const char *jobs_dir, const char *origin, char **path);

/* The path of libveles-fuzzcov.a (VELES_FUZZ_LIB, the build tree, the
 * installed one), or NULL when there is none. */
char *fz_runtime_path(void);

#endif
