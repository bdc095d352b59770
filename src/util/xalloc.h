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
/* An array of @nmemb @size-byte items, resized; dies on overflow too. */
void *xreallocarray(void *p, size_t nmemb, size_t size);
/* The capacity an array of @cap items takes to hold @need: @cap when it
 * is enough, else 1.5 times as much (at least 16 and @need). */
size_t xgrow_cap(size_t cap, size_t need);
/* Grows an array of @size-byte items to hold at least @need; returns it. */
void *xgrow(void *p, size_t size, size_t need, size_t *cap);

/*
 * XGROW(arr, need, cap): makes the array @arr (a pointer lvalue) hold at
 * least @need items, @cap being its size_t capacity, updated. An array
 * kept in step with it (same index, same capacity) follows with
 * XRESIZE(other, cap) when the capacity changed.
 */
#define XGROW(arr, need, cap) ((arr) = xgrow((arr), sizeof(*(arr)), (need), &(cap)))
#define XRESIZE(arr, n) ((arr) = xreallocarray((arr), (n), sizeof(*(arr))))
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* A freshly allocated printf result. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
