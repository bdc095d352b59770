#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/common.h"

static void oom(void)
{
	static const char msg[] = "veles: out of memory\n";

	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xreallocarray(void *p, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		oom();
	return xrealloc(p, nmemb * size);
}

size_t xgrow_cap(size_t cap, size_t need)
{
	size_t c = cap;

	if (need <= c)
		return c;
	/* 1.5x keeps the slack of large column arrays small; pages never
	 * touched do not count towards resident memory anyway. */
	c = c < 16 ? 16 : c > SIZE_MAX / 3 * 2 ? SIZE_MAX : c + c / 2;
	return c < need ? need : c;
}

void *xgrow(void *p, size_t size, size_t need, size_t *cap)
{
	size_t c;

	if (need <= *cap)
		return p;
	c = xgrow_cap(*cap, need);
	p = xreallocarray(p, c, size);
	*cap = c;
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	char probe[1];

	/* A one-byte buffer rather than NULL: GCC's format checks under the
	 * sanitizers reject a NULL destination. */
	va_start(ap, fmt);
	n = vsnprintf(probe, sizeof(probe), fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	p = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}
