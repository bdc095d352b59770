/* Included by every Veles source file after its system headers. */
#ifndef UTIL_COMMON_H
#define UTIL_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/banned.h"
#include "util/error.h"
#include "util/xalloc.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define UNUSED(x) ((void)(x))
/* A macro's value as a string literal: "default " STR(LIMIT). */
#define STR_(x) #x
#define STR(x) STR_(x)

/* True when the @n bytes at @s are ASCII digits, and there is one at least
 * (an index, a pid, a count). */
static inline bool mem_all_digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return n > 0;
}

/* The same for the string @s. */
static inline bool str_all_digits(const char *s)
{
	size_t n = 0;

	while (s[n] >= '0' && s[n] <= '9')
		n++;
	return n > 0 && !s[n];
}

/* The value of hex digit @c (either case), or -1 when it is none. */
static inline int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
