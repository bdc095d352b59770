/*
 * Two tiers of errors: library code returns a negative code and records one
 * user-ready message here; only the CLI prints it, once.
 */
#ifndef UTIL_ERROR_H
#define UTIL_ERROR_H

enum err_code {
	ERR_GENERIC = -1,
	ERR_NOMEM = -2,
	ERR_IO = -3,
	ERR_PARSE = -4,	   /* malformed input: JSON, YAML, numbers */
	ERR_NOTFOUND = -5, /* a profile, version, key or file that is not there */
	ERR_INVALID = -6,  /* valid syntax, wrong meaning: missing key, bad option */
	ERR_CONFLICT = -7, /* a concurrent update won; the caller may retry */
	ERR_EXISTS = -8,
	ERR_CHILD = -9, /* a spawned command could not be started */
	ERR_INTERRUPTED = -10,
};

/* Records a message (printf-style) and returns @code, so callers can write
 * `return err_set(ERR_IO, "cannot open %s: %s", path, strerror(errno));`. */
int err_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prefixes the current message with more context: "PREFIX: old message". */
int err_prefix(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The last message, or "" when none was set. */
const char *err_msg(void);

void err_clear(void);

#endif
