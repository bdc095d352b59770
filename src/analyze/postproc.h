/*
 * The postprocessor interface. A postprocessor transforms a profile in
 * place (adds models, smooths amounts, drops resources) and is registered
 * in the table in postproc.c. Options are parsed once into an opaque value
 * and may then be applied to many profiles (a job matrix applies the same
 * postprocessor to every job), so parsing and running are separate phases.
 *
 * Options have one form everywhere: each postprocessor's table
 * (util/optparse.h), parsed through postproc_parse_options(). `veles
 * postprocess PROFILE NAME --opt VALUE` passes them as typed; the job matrix
 * turns a YAML map {opt: value, list: [a, b], flag: true} into "--opt=value
 * --list=a --list=b --flag"; a profile's record replays as such options
 * (pp_record_argv(), analyze/pprecord.h). Perun's spellings are read too:
 * names and long options with underscores (regression_analysis,
 * --bucket_number) and its multi-letter short options (-bn), which each
 * table lists as aliases.
 *
 * Nothing here prints: the help is text the front end prints, and what a
 * postprocessor has to say while it runs goes to postproc_env.message.
 */
#ifndef ANALYZE_POSTPROC_H
#define ANALYZE_POSTPROC_H

#include <stdbool.h>
#include <stddef.h>

struct opt;
struct profile;

/*
 * Where a postprocessor reports what it did not do but was asked to (a
 * model it could not fit, and why): one line each, which a front end shows
 * as a warning. Without a receiver they are dropped.
 */
struct postproc_env {
	void (*message)(void *arg, const char *text);
	void *message_arg;
};

struct postproc {
	const char *name;    /* as on the command line: "regression-analysis" */
	const char *summary; /* one line for `veles postprocess --help` */
	/*
	 * Parses @argv (argv[0] is the postprocessor's name) into *@opts.
	 * Bad input is ERR_INVALID with a one-line message naming the option.
	 * With -h or --help: *@opts is NULL and *@help the help text (the
	 * caller frees it); @help NULL refuses them as options.
	 */
	int (*parse)(int argc, char **argv, void **opts, char **help);
	/* The options as a compact JSON object, recorded in the profile's
	 * "postprocessors" list as {"name": NAME, "params": THIS}. */
	char *(*params_json)(const void *opts);
	/* Transforms @p; ERR_INVALID when @p lacks what it needs (one line).
	 * Notes go to @env (which may be NULL). */
	int (*run)(struct profile *p, const void *opts, const struct postproc_env *env);
	void (*free_opts)(void *opts);
};

/* By name; Perun's names with underscores (regression_analysis) too. */
const struct postproc *postproc_find(const char *name);
/* All built-in postprocessors, NULL-terminated. */
const struct postproc *const *postproc_list(void);

/*
 * What a postprocessor's parse() gives postproc_parse_options(): its
 * usage line(s) and what it does (for the help), its table, the context
 * its callbacks get, and whether it takes operands (words that are no
 * option, such as Perun's mode words); without, an operand is an error.
 */
struct postproc_options {
	const char *usage; /* "veles postprocess PROFILE filter --where COND... [--any]" */
	const char *about;
	const struct opt *opts;
	void *ctx;
	bool operands;
};

/*
 * Parses postprocessor @name's options from @o's table, as "postprocess
 * NAME": long options with '_' for '-' are read as Perun writes them, and
 * -h and --help fill *@help (the caller frees it; nothing else is set
 * then). With o->operands, the operands are moved to argv[1..*@nop].
 * Returns 0 or ERR_INVALID with a message naming the option.
 */
int postproc_parse_options(const char *name, const struct postproc_options *o, int argc,
			   char **argv, int *nop, char **help);

/* @pp->parse(); --help without @help is ERR_INVALID. */
int postproc_parse(const struct postproc *pp, int argc, char **argv, void **opts, char **help);

/*
 * Runs @pp with parsed @opts on @p and appends its record to
 * p->postprocessors. On error @p may be partly transformed: callers work on
 * a profile they will not save then. @env may be NULL: the notes are
 * dropped then.
 */
int postproc_run(const struct postproc *pp, const void *opts, struct profile *p,
		 const struct postproc_env *env);

/*
 * Parses and applies in one step: @argv as for parse(). Returns 1 when it
 * asked for the help (nothing ran; *@help holds it when @help is given).
 * postproc_run_argv() drops the notes.
 */
int postproc_run_argv(struct profile *p, int argc, char **argv);
int postproc_run_argv_env(struct profile *p, int argc, char **argv, const struct postproc_env *env,
			  char **help);

/* Formats a note and gives it to @env's receiver, if any. */
void pp_say(const struct postproc_env *env, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Helpers for postprocessors.
 */
struct buf;
void pp_json_str(struct buf *b, bool *first, const char *key, const char *s);
void pp_json_num(struct buf *b, bool *first, const char *key, double v);
void pp_json_bool(struct buf *b, bool *first, const char *key, bool v);
/* Parses a finite number for option @opt of @pp; ERR_INVALID otherwise. */
int pp_parse_double(const char *pp, const char *opt, const char *arg, double *out);
/* The index of @arg in the NULL-terminated @allowed, or ERR_INVALID
 * "postprocess PP: unknown OPT 'ARG' (a, b, c)". */
int pp_choice(const char *pp, const char *opt, const char *arg, const char *const *allowed);

#endif
