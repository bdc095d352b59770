/*
 * A project job (docs/serve.md, "Jobs"): `veles run matrix`, `veles check
 * head --remeasure` or `veles bisect` on one version of the project,
 * queued as a run of tool "job" in the server's run queue. The run's
 * screen column keeps this description as JSON (and, once the job ended,
 * its result under "result"); the runner that claims it builds the veles
 * command line from it.
 */
#ifndef SERVE_JOBSPEC_H
#define SERVE_JOBSPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

enum jobspec_kind { JOB_MATRIX, JOB_REMEASURE, JOB_BISECT };

struct jobspec {
	enum jobspec_kind kind;
	/* Revisions as the page named them, full ids once resolved. */
	char *version;		  /* matrix, remeasure: that version; bisect: bad */
	char *base;		  /* remeasure: its parent (the only base it knows) */
	char *good;		  /* bisect */
	char *short_id, *summary; /* of the version, for the lists */
	char *command;		  /* bisect: what is timed (sh -c), or NULL */
	char *job;		  /* bisect: --job SPEC, or NULL */
	char *location;		  /* bisect --job: --location */
	char *build;		  /* bisect: --build */
	char *on;		  /* remeasure, bisect: --on */
	long max_rounds;	  /* remeasure: --max-rounds (0: its default) */
	double seconds;		  /* remeasure: --time (0: none) */
	long runs, max_runs;	  /* bisect: -r, --max-runs (0: default) */
	double min_effect;	  /* bisect: --min-effect (0: default) */
	long seed;		  /* bisect: --seed, when has_seed */
	bool has_seed;
};

const char *jobspec_kind_name(enum jobspec_kind k);
/* The body of POST /api/project/jobs; ERR_PARSE naming what is wrong.
 * Revisions are left as given (the caller resolves them). */
int jobspec_parse_request(const char *body, size_t len, struct jobspec *out);
/* The description as the screen column keeps it. */
void jobspec_json(const struct jobspec *js, struct buf *b);
/* Back from the screen column; ERR_PARSE when it is not a job's. */
int jobspec_from_json(const char *json, struct jobspec *out);
/* The arguments after `veles -C ROOT` (NULL-terminated; free with
 * jobspec_argv_free). */
char **jobspec_argv(const struct jobspec *js, const char *veles, const char *root);
void jobspec_argv_free(char **argv);
/* The command as a user would type it, for lists and logs. */
char *jobspec_command(const struct jobspec *js);
void jobspec_free(struct jobspec *js);

#endif
