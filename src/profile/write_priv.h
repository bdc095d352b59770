/* The JSON emitter shared by profile_write.c and write_res.c. */
#ifndef PROFILE_WRITE_PRIV_H
#define PROFILE_WRITE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "util/buf.h"

#define JW_CHUNK (64 * 1024)

struct jw {
	struct buf *b;
	int fd;	 /* -1: everything stays in @b */
	int err; /* first write error */
	bool indent;
	struct bgio *bg; /* NULL: jw_flush writes itself */
	size_t chunk;	 /* flush at this many bytes (JW_CHUNK when 0) */
	int depth;
	bool first; /* no member written yet at this depth */
};

void jw_flush(struct jw *w);
void jw_open(struct jw *w, char c);
void jw_close(struct jw *w, char c);
/* Starts a member (object key) or an element (key NULL). */
void jw_key(struct jw *w, const char *key);
void jw_str(struct jw *w, const char *s);
void jw_raw(struct jw *w, const char *json);
void jw_i64(struct jw *w, int64_t v);
void jw_f64(struct jw *w, double v);
/* A measured value: whole numbers as integers (numfmt_num). */
void jw_num(struct jw *w, double v);
void jw_cell(struct jw *w, const struct profile *p, const struct column *c, size_t row);

static inline void jw_maybe_flush(struct jw *w)
{
	if (w->fd >= 0 && w->b->len >= (w->chunk ? w->chunk : JW_CHUNK))
		jw_flush(w);
}

void write_typed(struct jw *w, const struct profile *p);
void write_global(struct jw *w, const struct profile *p);

#endif
