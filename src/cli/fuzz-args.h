/* veles fuzz's arguments (fuzz-args.c). */
#ifndef CLI_FUZZ_ARGS_H
#define CLI_FUZZ_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/cli.h"
#include "fuzz/fuzz.h"

struct fuzz_args {
	struct fz_options o;
	const char **inputs;
	size_t ninputs;
	enum out_format format;
	const char *format_name;
	bool quiet, no_profile, no_feedback, no_coverage;
	long runs, seed, increase;
};

/* Parses argv into @a (zeroed); 0, -1 after --help, or 2 after a usage
 * error said on stderr. */
int fuzz_parse_args(struct fuzz_args *a, int argc, char **argv);

#endif
