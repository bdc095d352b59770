/*
 * `veles check`'s own parts: --collect-missing and --remeasure. What a
 * check found is analyze/check_report.h; its rendering view/check_view.h.
 */
#ifndef CLI_CHECK_H
#define CLI_CHECK_H

#include <stdbool.h>
#include <sys/types.h>

#include "analyze/check_report.h"
#include "analyze/degrade.h"
#include "analyze/profile_config.h"
#include "analyze/strategy.h"
#include "project/settings.h"
#include "project/version_profiles.h"
#include "view/check_view.h"

struct profile;
struct run_matrix;

struct cli_ctx;

/* What --collect-missing may run. */
struct check_collect {
	bool yes;		   /* --yes: a profile's own recipe may run too */
	bool ask;		   /* stdin and stderr are terminals: ask before one runs */
	bool quiet;		   /* no progress line */
	bool log;		   /* degradation.log_collect: output to .veles/logs/ */
	struct run_matrix *matrix; /* the user's job matrix, read on first use */
};

/*
 * --collect-missing: measures the configuration of @target (named
 * @target_name) on version @parent, in a temporary worktree after
 * execute.pre_run, and registers the profile with @parent. What runs is
 * the job of the user's matrix that makes that configuration; without one,
 * the profile's own recipe, but only with --yes or the user's answer.
 * Returns 0 when it collected, 1 when it ran nothing (said on stderr), or
 * a negative error.
 */
int check_collect_missing(struct cli_ctx *ctx, struct check_collect *cc,
			  const struct profile *target, const char *target_name,
			  const char *parent);
void check_collect_release(struct check_collect *cc);

/* What the command line asked for. */
struct check_cli {
	const char *method;		    /* --method, or NULL: degradation.strategies decide */
	struct check_strategies strategies; /* when no --method */
	bool collect_missing;
	struct check_collect *collect; /* --collect-missing: what may run */
	enum change_class fail_from;   /* --fail-on, --strict */
	bool force, verbose;
	const char *on; /* --on, or NULL: the most stable metric both have */
	bool strict_env, remeasure, seeded;
	unsigned long max_rounds;
	double max_seconds;
	bool quiet_progress;
	size_t max_chars; /* --max-chars */
	enum check_format fmt;
	struct check_params cp;
};

struct check_run;
/* --remeasure (check-remeasure.c): version @id and its first parent
 * measured now, a pair per job of the matrix added to @r, their
 * environments held together by @run's env_check. 0, or -1 after printing
 * the error. */
int check_remeasure(struct cli_ctx *ctx, const struct check_cli *o, const struct check_run *run,
		    const char *id, struct check_report *r);

/* Parses the options (check-opts.c) as cli_parse_options() does: 0 with
 * the *@nop operands in argv[1..], -1 after --help, or 2. */
int check_parse_args(int argc, char **argv, struct check_cli *o, int *nop);

#endif
