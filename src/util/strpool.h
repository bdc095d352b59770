/*
 * Interned strings: each distinct string is stored once and named by a dense
 * 32-bit id, so profile columns hold ids instead of pointers. Id 0 is always
 * the empty string.
 */
#ifndef UTIL_STRPOOL_H
#define UTIL_STRPOOL_H

#include <stddef.h>
#include <stdint.h>

struct strpool;

struct strpool *strpool_new(void);
void strpool_free(struct strpool *sp);
/* The id of @s (length @n, may hold NULs), adding it when new. */
uint32_t strpool_intern(struct strpool *sp, const char *s, size_t n);
uint32_t strpool_intern_cstr(struct strpool *sp, const char *s);
/* The id of @s, or UINT32_MAX when it was never interned. */
uint32_t strpool_find(const struct strpool *sp, const char *s, size_t n);
/* The NUL-terminated string for @id; valid until the pool is freed. */
const char *strpool_get(const struct strpool *sp, uint32_t id);
size_t strpool_len(const struct strpool *sp, uint32_t id);
size_t strpool_count(const struct strpool *sp);

#endif
