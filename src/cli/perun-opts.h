/*
 * Perun's multi-letter short options (-sb, -ot, -pn, -gr, ...), which
 * getopt would read as bundled single letters: each is rewritten in place
 * to its long form before a command parses its options.
 */
#ifndef CLI_PERUN_OPTS_H
#define CLI_PERUN_OPTS_H

/*
 * @pairs: a NULL-terminated list of Perun spelling, long option, Perun
 * spelling, long option, ... Arguments up to "--" that are a Perun
 * spelling ("-sb KEY") or one with "=VALUE" are replaced (argv's strings
 * are not freed; the replacements live as long as the process).
 */
void cli_perun_short_opts(int argc, char **argv, const char *const *pairs);

/*
 * A postprocessor's arguments (argv[0] its name) as Perun spells them,
 * made ours: Perun's names (regression_analysis), its long options with
 * underscores (--bucket_number), its multi-letter short ones (-bn, -dp,
 * -ww, ...), --of-key and --per-key, and for moving-average the method as
 * a word (sma, smm, ema) and --decay KIND VALUE. Returns a new argv
 * (NULL-terminated, *@argc updated) whose strings the caller frees with
 * cli_perun_argv_free().
 */
char **cli_perun_pp_argv(int *argc, char **argv);
void cli_perun_argv_free(char **argv);

#endif
