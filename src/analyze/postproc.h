/*
 * The postprocessor interface. A postprocessor transforms a profile in
 * place (adds models, smooths amounts, drops resources) and is registered
 * in the table in postproc.c. Options are parsed once into an opaque value
 * and may then be applied to many profiles (a job matrix applies the same
 * postprocessor to every job), so parsing and running are separate phases.
 *
 * Options have one form everywhere: getopt_long arguments. `veles
 * postprocess PROFILE NAME --opt VALUE` passes them as typed; the job matrix
 * turns a YAML map {opt: value, list: [a, b], flag: true} into "--opt=value
 * --list=a --list=b --flag" (underscores become hyphens, so Perun's
 * "regression_models" works), see postproc_params_argv().
 */
#ifndef ANALYZE_POSTPROC_H
#define ANALYZE_POSTPROC_H

#include <stdbool.h>
#include <stddef.h>

struct profile;

struct postproc {
	const char *name;    /* as on the command line: "regression-analysis" */
	const char *summary; /* one line for `veles postprocess --help` */
	/* Prints the usage: every option, its values and its default. */
	void (*usage)(void);
	/*
	 * Parses @argv (argv[0] is the postprocessor's name) into *@opts.
	 * Bad input is ERR_INVALID with a one-line message naming the option.
	 * Sets *@opts to NULL after printing the usage for --help.
	 */
	int (*parse)(int argc, char **argv, void **opts);
	/* The options as a compact JSON object, recorded in the profile's
	 * "postprocessors" list as {"name": NAME, "params": THIS}. */
	char *(*params_json)(const void *opts);
	/* Transforms @p; ERR_INVALID when @p lacks what it needs (one line). */
	int (*run)(struct profile *p, const void *opts);
	void (*free_opts)(void *opts);
};

const struct postproc *postproc_find(const char *name);
/* All built-in postprocessors, NULL-terminated. */
const struct postproc *const *postproc_list(void);

/*
 * Runs @pp with parsed @opts on @p and appends its record to
 * p->postprocessors. On error @p may be partly transformed: callers work on
 * a profile they will not save then.
 */
int postproc_apply(const struct postproc *pp, const void *opts, struct profile *p);

/*
 * Parses and applies in one step: @argv as for parse(). Returns 1 when the
 * usage was printed (--help) and nothing ran.
 */
int postproc_run_argv(struct profile *p, int argc, char **argv);

/*
 * Where a postprocessor reports what it did not do but was asked to (a
 * model it could not fit, and why): one line each. The CLI prints them as
 * warnings; without a receiver they are dropped.
 */
void postproc_set_notify(void (*fn)(const char *msg));
void pp_notify(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Helpers for postprocessors.
 */
/* Appends ",\"key\":" + JSON string of @s to @b (no comma when @first). */
struct buf;
void pp_json_str(struct buf *b, bool *first, const char *key, const char *s);
void pp_json_num(struct buf *b, bool *first, const char *key, double v);
void pp_json_bool(struct buf *b, bool *first, const char *key, bool v);
/* Parses a finite number for option @opt of @pp; ERR_INVALID otherwise. */
int pp_parse_double(const char *pp, const char *opt, const char *arg, double *out);
/* Reports getopt's '?' or ':' for option table users; returns ERR_INVALID. */
int pp_bad_option(const char *pp, int opt, char **argv);

#endif
