/* Perun's multi-letter short options rewritten to our long ones. */
#include <stdlib.h>
#include <string.h>

#include "cli/perun-opts.h"
#include "util/common.h"

void cli_perun_short_opts(int argc, char **argv, const char *const *pairs)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		for (const char *const *p = pairs; p[0] && p[1]; p += 2) {
			size_t n = strlen(p[0]);

			if (strncmp(argv[i], p[0], n) != 0 ||
			    (argv[i][n] != '\0' && argv[i][n] != '='))
				continue;
			/* The option parser reorders argv, never writes its strings. */
			argv[i] = argv[i][n] ? xasprintf("%s%s", p[1], argv[i] + n) : (char *)p[1];
			break;
		}
	}
}
