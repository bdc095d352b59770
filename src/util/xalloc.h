/*
 * Allocation that cannot fail: running out of memory prints one line and
 * exits, as there is nothing useful a profile tool can do without memory.
 */
#ifndef UTIL_XALLOC_H
#define UTIL_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* Grows an array of @size-byte items to hold at least @need; returns it. */
void *xgrow(void *p, size_t size, size_t need, size_t *cap);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* A freshly allocated printf result. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
