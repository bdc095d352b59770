/*
 * veles bisect below the command line: bisect.c (the first-parent line
 * and the search over it), bisect_side.c (a version checked out, built
 * and measured) and bisect_decide.c (whether bad is slower, and whether a
 * version is like good or like bad). The search itself is
 * analyze/bisect_search.h; the front end parses, resolves the two
 * versions and prints what the callbacks say.
 *
 * By default every decision measures the versions it compares now, in
 * interleaved rounds (src/run/rmit.h): bad against good at the start, and
 * each candidate together with good and bad, so drift of the machine
 * between the start and a candidate cannot read as a change. With
 * --no-interleave, good and bad are measured once at the start and each
 * candidate later against those numbers (how bisect worked before; kept
 * so bench/drift.sh can show the difference).
 */
#ifndef RUN_BISECT_H
#define RUN_BISECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/degrade.h"
#include "analyze/envinfo.h"
#include "analyze/seqtest.h"
#include "perf/runcount.h"
#include "run/run.h"

struct bisect_job;
struct git_repository;
struct vcs;

enum on_time { ON_CPU, ON_USER, ON_REAL, ON_SYS };

/* What the search says: a progress line, or a result line (why it ends
 * without a first slow commit). */
enum bisect_say { BISECT_PROGRESS, BISECT_RESULT };

struct bisect {
	struct vcs *vcs;
	struct git_repository *repo;
	const char *root, *logs_dir; /* the project's, absolute */
	/* Lines for the user; progress only without @quiet. */
	void (*say)(void *arg, enum bisect_say kind, const char *text);
	/* A version's environment held to good's: 0, or an error that stops
	 * the search (--strict-env). NULL: not looked at. */
	int (*env_check)(void *arg, const struct env_info *good, const struct env_info *e,
			 const char *name);
	void *arg;
	/* After each candidate's verdict (as bisect_classify() gives it); may
	 * be NULL. */
	void (*step)(void *arg, const char *version, int verdict);
	const char *good_rev, *bad_rev, *build;
	const char *job_spec, *location;
	struct bisect_job *job; /* --job, or NULL: COMMAND is timed */
	char **cmd;
	unsigned long runs, max_runs;
	enum on_time on;
	bool on_given; /* --on was given */
	struct check_params cp;
	bool quiet, interleave, strict_env;
	uint64_t seed;
	char *build_from_config;
	char good_id[41];
	struct env_info good_env; /* good's, which every other version is held to */
	struct perf_runcount rc;  /* the exact metrics of each run (cpu) */
};

/* A version: its checkout (built) and, without interleaving, its runs. */
struct side {
	char id[41];
	struct run_checkout co;
	bool open;
	double *v;
	size_t n;
	/* Against good (interleaved): the last look at ln(this / good). */
	struct seq_look vs_good;
	bool have_vs_good;
};

void bisect_say(const struct bisect *b, enum bisect_say kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define bisect_progress(b, ...) bisect_say((b), BISECT_PROGRESS, __VA_ARGS__)
/* "cpu", "user", "real", "sys". */
const char *bisect_on_name(enum on_time on);

/* Checks @s out and builds it (once); the first opened is good, whose
 * environment the others are held to (a warning, or --strict-env's
 * refusal). */
int side_open(struct bisect *b, struct side *s);
void side_close(struct bisect *b, struct side *s);
/* @n more runs of @s appended to s->v (a warm-up run first the first
 * time), in its checkout. */
int side_measure_block(struct bisect *b, struct side *s, size_t n);
/* One value of @s: one run of the command, or the median of one run of
 * the job, in its checkout. */
int side_measure_once(struct bisect *b, struct side *s, double *value);

/*
 * Whether bad is surely slower than good: 0 with *@slower set (and a line
 * printed when it is not), or an error.
 */
int bisect_bracket(struct bisect *b, struct side *good, struct side *bad, bool *slower);
/* Whether @s is like good (0) or like bad (1), or -1 when --max-runs
 * ended without an answer. */
int bisect_classify(struct bisect *b, struct side *good, struct side *bad, struct side *s,
		    int *verdict);
/* How @s compares with good, for the report: the class, the relative
 * change, and how many values each side had. */
enum change_class bisect_judge(const struct bisect *b, const struct side *good,
			       const struct side *s, double *rel, size_t *ngood, size_t *ns);

/* What a search found. */
struct bisect_outcome {
	bool found;	       /* the first slow version is @first */
	char first[41];	       /* found: its full id */
	enum change_class cls; /* found: how it compares with good */
	double rel;
	size_t ngood, nfirst; /* the values each side had */
};

/*
 * The search from b->good_id to @bad (full ids): checks out and builds
 * good and bad, makes sure bad is slower, then bisects the versions after
 * good up to bad on bad's first-parent line. 0 with @out filled (found,
 * or not: a BISECT_RESULT line said why), 1 when a version could not be
 * told apart, or an error.
 */
int bisect_find(struct bisect *b, const char *bad, struct bisect_outcome *out);

/* ---- around the search (bisect_setup.c), for every front end ---- */

/* `veles bisect`'s defaults: 10 runs, at most 100, interleaved, the check
 * parameters' defaults, a seed from the clock. */
void bisect_defaults(struct bisect *b);
/* --on NAME: cpu, user, real or sys; ERR_INVALID otherwise. */
int bisect_set_on(struct bisect *b, const char *name);
/* --min-effect or --alpha (@name): a positive number (alpha below 0.5). */
int bisect_parse_fraction(const char *name, const char *arg, double *out);
/* The options and the command (@cmd, its first word, or NULL) go
 * together: ERR_INVALID with the line saying why not. */
int bisect_check(const struct bisect *b, const char *cmd);
/* Opens the exact counters and chooses what decides (b->on: cpu where
 * the kernel allows it, else user), and parses the --job. ERR_INVALID
 * when that cannot be. */
int bisect_metric(struct bisect *b);
/* The project's side: a git project, good's and bad's ids (@bad), the
 * build from execute.pre_run. ERR_INVALID when good and bad are one
 * version. */
struct project;
int bisect_prepare(struct bisect *b, struct project *p, char bad[41]);
/* Frees what bisect_metric() and bisect_prepare() made. */
void bisect_release(struct bisect *b);

#endif
