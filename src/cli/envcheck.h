/*
 * Two sides of a comparison measured in different environments (a
 * teammate's machine, another kernel, governor or compiler): `check`,
 * `diff`, `log --perf` and `bisect` say so on stderr, once per distinct
 * difference, and under --strict-env refuse to compare (the library's
 * env_guard, analyze/envinfo.h, with the CLI's wording and stderr).
 */
#ifndef CLI_ENVCHECK_H
#define CLI_ENVCHECK_H

#include <stdbool.h>

struct env_info;
struct profile;

/*
 * Compares the environments of @a (named @an) and @b (@bn). Without
 * @strict, warns (one line, each distinct one once) and returns 0. With
 * @strict, a difference, or a side that records none, is refused:
 * ERR_INVALID with the message set (cli_fail() prints it).
 */
int cli_env_check(const struct profile *a, const char *an, const struct profile *b, const char *bn,
		  bool strict);
int cli_env_check_info(const struct env_info *a, const char *an, const struct env_info *b,
		       const char *bn, bool strict);

#endif
