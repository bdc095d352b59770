/* veles run: the command (cmd-run.c) and its output (run-report.c). */
#ifndef CLI_RUN_H
#define CLI_RUN_H

#include <stdbool.h>

#include "cli/cli.h"
#include "run/jobs.h"
#include "util/buf.h"

struct run_cli {
	struct cli_ctx *ctx;
	struct run_matrix *m;
	unsigned long depth; /* --depth: ancestors per REV; 0 = all */
	bool crawl, quiet;
	enum out_format format;
	struct buf json; /* results, for --format json */
	struct run_tally t;
	int real_stdout;     /* --format json: the JSON goes here, the rest to stderr */
	char *name_template; /* -ot, or format.output_profile_template */
};

/* run_jobs_opts.start and .done (the @arg is the run_cli). */
void run_job_start(void *arg, const struct run_job *job, const struct run_tally *t);
void run_job_done(void *arg, const char *version, const struct run_job *job,
		  const struct run_result *res, const struct run_tally *t);
/* Takes the progress line off the terminal. */
void run_progress_clear(struct run_cli *r);
/* What the run's collectors and postprocessors say (cli_collect_message),
 * a warning on a line of its own. */
void run_message(void *arg, enum collect_msg kind, const char *text);
void run_print_summary(struct run_cli *r);

#endif
