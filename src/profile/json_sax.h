/*
 * A streaming JSON tokenizer: pull one event at a time, from memory or from
 * a file descriptor read in 64 KiB chunks, so a profile never becomes a DOM
 * and resident memory stays near the size of what the caller keeps.
 *
 * Hand-written because it is the hot loop of every profile load: yajl alone
 * takes longer than our whole load + save (see bench/yajl_parse.c).
 */
#ifndef PROFILE_JSON_SAX_H
#define PROFILE_JSON_SAX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

enum jev {
	JEV_EOF = 0, /* the single top-level value is complete */
	JEV_OBJ_START,
	JEV_OBJ_END,
	JEV_ARR_START,
	JEV_ARR_END,
	JEV_KEY, /* s/slen: the member name (the ':' is consumed) */
	JEV_STR, /* s/slen */
	JEV_INT, /* i */
	JEV_DBL, /* d */
	JEV_TRUE,
	JEV_FALSE,
	JEV_NULL,
};

struct jsax {
	const char *name; /* for error messages */
	int fd;		  /* -1 when parsing memory */
	char *own;	  /* our read buffer (fd mode) */
	size_t own_cap;
	const char *p, *end; /* unread input */
	bool eof;	     /* nothing beyond @end */
	int64_t base;	     /* input offset of own[0] (fd) or of the data start */
	const char *start;   /* what @base is the offset of */
	uint64_t line;	     /* 1-based */
	int64_t line_start;  /* input offset of the current line's first byte */
	uint8_t *stack;	     /* '{' or '[' per open container */
	size_t depth, stack_cap;
	int state;
	struct buf sbuf;      /* unescaped strings */
	struct jtpl *tpl;     /* the last flat object's text between its values */
	const char *map_end;  /* jsax_init_map: the mapping's end; NULL otherwise */
	const char *map_kept; /* jsax_init_map: the first page not handed back */
	/* The current event's value; strings and raw text stay valid until
	 * the next call. */
	const char *s;
	size_t slen;
	int64_t i;
	double d;
	const char *tok; /* where the current event's token starts */
	const char *raw; /* numbers as written */
	size_t rawlen;
};

void jsax_init_mem(struct jsax *j, const void *data, size_t len, const char *name);
/*
 * Reads a file the caller mapped (read-only, private). The input is
 * consumed a window at a time like a file read in chunks, but without
 * copying it, and the pages behind the window are handed back to the
 * kernel, so the resident size stays that of the window, not the file.
 * @data must be page aligned.
 */
void jsax_init_map(struct jsax *j, const void *data, size_t len, const char *name);
/*
 * For reading a list on two threads. jsax_split_room() gives the input
 * already in memory (or mapped) from the next unread byte, [*lo, *hi);
 * false when input is still to be read from a file descriptor.
 * jsax_init_split() starts a tokenizer at @at, just after an element of
 * a list or an object, as if inside that one container (its closing
 * bracket ends it); its offsets count
 * from @from's start, its lines from 1. @kind is '[' for a list, '{' for
 * an object (then at is just after a member's value). jsax_jump() moves
 * @j, which is just after an element of that container, to @to, the other
 * tokenizer's closing bracket, @lines further on and with @line_start as its line's start when
 * @lines is not zero.
 */
bool jsax_split_room(const struct jsax *j, const char **lo, const char **hi);
void jsax_init_split(struct jsax *j, const struct jsax *from, const char *at, char kind);
void jsax_jump(struct jsax *j, const char *to, uint64_t lines, int64_t line_start);
/* Reads from @fd; @prefix holds bytes already read from it (may be empty). */
void jsax_init_fd(struct jsax *j, int fd, const char *name, const void *prefix, size_t len);
void jsax_release(struct jsax *j);

/* The next event (enum jev), or a negative ERR_* with the message
 * "NAME:LINE:COL: what went wrong" set. */
int jsax_next(struct jsax *j);

/*
 * Inside an array, reads the plain integers that come next into @out (up to
 * @max) and returns how many; stops before anything else (a closing ']', a
 * non-integer, the end of the buffered input), which jsax_next() then
 * returns as usual. The reader's fast path for measurement arrays.
 */
size_t jsax_ints(struct jsax *j, int64_t *out, size_t max);

/* One member of an object read by jsax_flat_next(). */
struct jmember {
	const char *key; /* not NUL-terminated; valid until the next call */
	size_t klen;
	int ev;		 /* JEV_STR, JEV_INT, JEV_DBL, JEV_TRUE, JEV_FALSE or JEV_NULL */
	const char *raw; /* a string's contents or a number as written */
	size_t rawlen;
	int64_t i; /* JEV_INT */
	double d;  /* JEV_DBL */
};

/*
 * Inside an array, reads the next element whole when it is a flat object
 * (every value a string without escapes, a number or a literal) of at most
 * @max members, already buffered. Returns 1 with the members in @m, their
 * count in @n and the object consumed; 0 having consumed nothing (read on
 * with jsax_next(), which also reports any error there); negative on a
 * read error. The list layouts' hot path: a million resources, each a
 * small flat object, cost one call each instead of a dozen events.
 * @same_keys tells that the keys (and the text between the values) are
 * those of the previous flat object, byte for byte, as they nearly always
 * are in a list of resources: then the object was matched against that
 * text instead of scanned.
 */
int jsax_flat_next(struct jsax *j, struct jmember *m, size_t max, size_t *n, bool *same_keys);

/* Consumes the rest of a value whose first event @ev was just returned. */
int jsax_skip(struct jsax *j, int ev);
/* Same, appending the value as compact JSON to @out. */
int jsax_capture(struct jsax *j, int ev, struct buf *out);

/* Sets an error at the current event's token: "NAME:LINE:COL: WHAT". */
int jsax_error(struct jsax *j, const char *what);

#endif
