/*
 * veles bisect, shared by its files: cmd-bisect.c (options, the search,
 * the report), bisect-side.c (a version checked out, built and measured)
 * and bisect-decide.c (whether bad is slower, and whether a version is
 * like good or like bad).
 *
 * By default every decision measures the versions it compares now, in
 * interleaved rounds (src/run/rmit.h): bad against good at the start, and
 * each candidate together with good and bad, so drift of the machine
 * between the start and a candidate cannot read as a change. With
 * --no-interleave, good and bad are measured once at the start and each
 * candidate later against those numbers (how bisect worked before; kept
 * so bench/drift.sh can show the difference).
 */
#ifndef CLI_BISECT_H
#define CLI_BISECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/degrade.h"
#include "analyze/envinfo.h"
#include "analyze/seqtest.h"
#include "perf/runcount.h"
#include "run/run.h"

struct bisect_job;
struct cli_ctx;

enum on_time { ON_CPU, ON_USER, ON_REAL, ON_SYS };

struct bisect {
	struct cli_ctx *ctx;
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
	char *home;		  /* where we were started, to come back to */
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

void bisect_progress(const struct bisect *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
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

#endif
