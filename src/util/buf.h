/* A growable byte buffer, always NUL-terminated after its contents. */
#ifndef UTIL_BUF_H
#define UTIL_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct buf {
	char *data;
	size_t len;
	size_t cap;
};

#define BUF_INIT                                                                                   \
	{                                                                                          \
		NULL, 0, 0                                                                         \
	}

/* Makes room for @extra more bytes (plus the terminator). */
void buf_grow(struct buf *b, size_t extra);
void buf_add(struct buf *b, const void *data, size_t n);
void buf_addc(struct buf *b, char c);
void buf_adds(struct buf *b, const char *s);
void buf_addf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vaddf(struct buf *b, const char *fmt, va_list ap);
/* Appends @s as a JSON string literal, quotes included. */
void buf_add_json_str(struct buf *b, const char *s, size_t n);
/* Appends @s as a quoted CSV field (RFC 4180: each '"' doubled). */
void buf_add_csv(struct buf *b, const char *s);
/* @s escaped for XML text or an attribute value, control characters
 * dropped; cut after @max characters (SIZE_MAX: none) with an ellipsis. */
void buf_add_xml(struct buf *b, const char *s, size_t max);
void buf_reset(struct buf *b);
void buf_release(struct buf *b);
/* Hands the contents to the caller (never NULL) and empties @b. */
char *buf_detach(struct buf *b, size_t *len);
/* The contents as a C string ("" for an empty buffer). */
const char *buf_str(const struct buf *b);

#endif
