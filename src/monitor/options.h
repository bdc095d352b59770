/*
 * veles monitor's options as a whole: what the front end parsed, checked
 * together (-f with -p, --profile's needs, the subsystem letters), and
 * --profile turned into the arguments of `collect monitor`. Errors are
 * ERR_INVALID: the front end's usage errors.
 */
#ifndef MONITOR_OPTIONS_H
#define MONITOR_OPTIONS_H

#include "monitor/run.h"

/* The checks no single option can make. */
int mon_opts_check(const struct mon_run_opts *o);

/* -i SECS: seconds, fractions allowed, 0 (back to back) to a day. These
 * two check an option's value as it is parsed: their messages start
 * "monitor: ", the others' name no command. */
int mon_parse_interval(const char *v, double *out);
/* A count for @opt ("--count"): a whole number, not negative. */
int mon_parse_uint(const char *opt, const char *v, unsigned long *out);

/* `collect monitor -s LETTERS -i SECS [-c N] [--on] [--import SPEC] --
 * CMD...` for --profile: the summary letters only (details have no single
 * value per interval). */
struct mon_profile_args {
	char **argv; /* argc words, then NULL: argv[0] is "monitor" */
	int argc;
	char letters[64], interval[32], count[32];
};
int mon_profile_args(const struct mon_run_opts *o, struct mon_profile_args *a);
void mon_profile_args_release(struct mon_profile_args *a);

#endif
