#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/common.h"

static _Thread_local char err_buf[1024];

int err_set(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err_buf, sizeof(err_buf), fmt, ap);
	va_end(ap);
	return code;
}

int err_prefix(int code, const char *fmt, ...)
{
	char prefix[512];
	char old[sizeof(err_buf)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err_buf, sizeof(old));
	/* Truncating an over-long message is fine: it is still one line. */
	size_t n = strlen(prefix);
	if (n > sizeof(err_buf) - 3)
		n = sizeof(err_buf) - 3;
	memcpy(err_buf, prefix, n);
	memcpy(err_buf + n, ": ", 2);
	size_t rest = sizeof(err_buf) - n - 3;
	size_t olen = strnlen(old, rest);
	memcpy(err_buf + n + 2, old, olen);
	err_buf[n + 2 + olen] = '\0';
	return code;
}

const char *err_msg(void)
{
	return err_buf;
}

void err_clear(void)
{
	err_buf[0] = '\0';
}
