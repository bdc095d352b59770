/* libveles: versions, errors, the log callback, memory. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/api.h"
#include "util/error.h"

/* The codes are the library's own (util/error.h), one for one. */
_Static_assert((int)VELES_ERR_PARSE == (int)ERR_PARSE &&
		       (int)VELES_ERR_NOTFOUND == (int)ERR_NOTFOUND &&
		       (int)VELES_ERR_INVALID == (int)ERR_INVALID &&
		       (int)VELES_ERR_INTERRUPTED == (int)ERR_INTERRUPTED,
	       "veles.h's error codes differ from util/error.h's");

static veles_log_fn log_fn;
static void *log_data;

int veles_abi_version(void)
{
	return VELES_ABI_VERSION;
}

const char *veles_version(void)
{
	return VELES_VERSION;
}

const char *veles_last_error(void)
{
	return err_msg()[0] ? err_msg() : "unknown error";
}

const char *veles_error_name(int code)
{
	static const char *const names[] = {
		"ok",	       "error",	       "out of memory", "input/output error",
		"parse error", "not found",    "invalid",	"conflict",
		"exists",      "child failed", "interrupted",
	};

	if (code > 0 || -code >= (int)(sizeof(names) / sizeof(names[0])))
		return "error";
	return names[-code];
}

void api_log(int level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!log_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_fn(level, msg, log_data);
}

void veles_set_log(veles_log_fn fn, void *data)
{
	log_fn = fn;
	log_data = data;
}

void veles_free(void *ptr)
{
	free(ptr);
}
