/* The state of one fuzzing session, shared by the files of src/fuzz/. */
#ifndef FUZZ_FUZZ_PRIV_H
#define FUZZ_FUZZ_PRIV_H

#include "fuzz/cover.h"
#include "fuzz/exec.h"
#include "fuzz/fuzz.h"
#include "fuzz/mutate.h"
#include "fuzz/rng.h"

#define FZ_NWORST 5	 /* the costliest inputs kept in worst/ */
#define FZ_ENV_BINS 32	 /* length classes of the cost-by-length curve */
#define FZ_CALIB_RUNS 5	 /* runs of each seed, and of each worst input at the end */
#define FZ_SAVED_MAX 100 /* crash and hang files kept (all are counted) */
#define FZ_NO_ENTRY UINT32_MAX

/* A kept input of the corpus; its id is its index. */
struct fz_entry {
	uint8_t *data;
	size_t len;
	double cost;
	uint64_t hits;	 /* edges passed in its run (0 without coverage) */
	uint32_t parent; /* FZ_NO_ENTRY for a seed */
	uint64_t found_run;
	uint32_t depth; /* mutated generations from its seed */
	bool seed;
	bool saved;   /* written to corpus/ */
	char *rules;  /* the mutations that made it from its parent, or NULL */
	char *origin; /* a seed's file name, or NULL */
};

/* One of the costliest inputs seen in any run (kept or not). */
struct fz_kept {
	uint8_t *data;
	size_t len;
	double cost;
	uint64_t found_run;
	char *rules;
};

/* The costliest run of a length class: a point of the cost-by-length curve. */
struct fz_point {
	size_t len;
	double cost;
	bool set;
};

struct fz_session {
	const struct fz_options *o;
	char *out, *corpus_dir, *worst_dir, *crash_dir, *hang_dir, *state_path, *input_path;
	char *input_dir; /* a directory made for the input file, or NULL */
	int lock_fd;
	struct fz_exec ex;
	struct fz_cover cov;
	bool cov_open; /* the map exists */
	bool use_cov;  /* and the program fills it */
	struct fz_rng rng;
	uint64_t seed;
	struct fz_dict dict;
	bool text;
	size_t max_size;
	double timeout;

	struct fz_entry *e;
	size_t n, cap;
	uint32_t *ntop; /* per entry: edges it holds the maximum of */
	size_t ntop_cap;
	uint32_t *order; /* entry ids by cost, ascending */
	size_t norder;

	const struct fz_rule *rules;
	size_t nrules;
	bool *usable; /* per rule: fits these inputs */
	uint64_t *hits, *tries;

	uint64_t runs, runs0, crashes, hangs, crashes0, hangs0;
	double time0, t_start;
	double base, margin;

	struct fz_kept worst[FZ_NWORST];
	size_t nworst;
	struct fz_point env[FZ_ENV_BINS];
	uint64_t *saved_hash; /* contents of the crash and hang files written */
	size_t nsaved_hash;
	size_t ncrash_files, nhang_files;
	double last_progress, last_checkpoint;
	bool resumed;
	char *metric_was;      /* the metric a resumed state was measured with */
	size_t saved_max_size; /* the length limit a resumed state used */
};

double fz_now(void);
uint64_t fz_hash(const uint8_t *data, size_t len);

/* ---- corpus.c ---- */
uint32_t fz_corpus_add(struct fz_session *s, const uint8_t *data, size_t len, double cost,
		       uint32_t parent, const char *rules);
/* A parent for the next mutants: the costliest entry (a quarter of the
 * time), with coverage an input holding some edge's maximum (half), else
 * Perun's fitness intervals over the costs. */
uint32_t fz_corpus_pick(struct fz_session *s);
/* Offers a run to the worst list and the cost-by-length curve. */
void fz_note_cost(struct fz_session *s, const uint8_t *data, size_t len, double cost,
		  const char *rules);
/* The cost-by-length curve alone. */
void fz_env_put(struct fz_session *s, size_t len, double cost);
void fz_corpus_release(struct fz_session *s);

/* ---- state.c ---- */
/* The paths in the output directory. */
void fz_state_paths(struct fz_session *s);
/* Makes (or opens) the output directory and takes its lock. */
int fz_state_open(struct fz_session *s);
/* Loads the saved session. */
int fz_state_load(struct fz_session *s);
/* Writes the new corpus files, worst/ and the state file. */
int fz_state_save(struct fz_session *s);
/* Keeps a crashing or hanging input (the first FZ_SAVED_MAX distinct). */
int fz_state_keep(struct fz_session *s, bool crash, const uint8_t *data, size_t len, int status);
void fz_state_close(struct fz_session *s);

/* ---- report.c ---- */
int fz_report_fill(struct fz_session *s, struct fz_report *rep);

#endif
