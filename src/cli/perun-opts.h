/*
 * Perun's multi-letter short options (-sb, -ot, -pn, -gr, ...), which
 * an option parser would read as bundled single letters: each is rewritten in place
 * to its long form before a command parses its options. (A command that
 * parses with util/optparse.h lists them in its table as OPT_DASH_ALIAS
 * instead, as the postprocessors do.)
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

#endif
