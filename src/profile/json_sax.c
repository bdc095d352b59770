/*
 * The JSON tokenizer (json_sax.h): its input (memory, a mapped file read a
 * window at a time, a descriptor), the events of the grammar, and skipping
 * or capturing a whole value. Strings with escapes are decoded in
 * json_sax_esc.c, runs of integers taken in json_sax_ints.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "profile/json_sax.h"
#include "profile/json_sax_priv.h"
#include "profile/numfmt.h"
#include "util/common.h"

#define CHUNK (64 * 1024)
/* A mapped file is parsed a window at a time; parsed pages are handed back
 * once this many have gathered behind the window. */
#define MAP_WINDOW (512 * 1024)
#define MAP_DROP (1024 * 1024)
#define MAX_DEPTH 100000

void jsax_init_mem(struct jsax *j, const void *data, size_t len, const char *name)
{
	memset(j, 0, sizeof(*j));
	j->name = name ? name : "<memory>";
	j->fd = -1;
	j->p = j->start = data;
	j->end = j->p + len;
	j->eof = true;
	j->line = 1;
}

void jsax_init_map(struct jsax *j, const void *data, size_t len, const char *name)
{
	jsax_init_mem(j, data, len < MAP_WINDOW ? len : MAP_WINDOW, name);
	j->map_end = (const char *)data + len;
	j->map_kept = data;
	j->eof = j->end == j->map_end;
}

void jsax_init_fd(struct jsax *j, int fd, const char *name, const void *prefix, size_t len)
{
	jsax_init_mem(j, NULL, 0, name);
	j->fd = fd;
	j->eof = false;
	j->own_cap = len > CHUNK ? len + CHUNK : 2 * CHUNK;
	j->own = xmalloc(j->own_cap);
	if (len)
		memcpy(j->own, prefix, len);
	j->p = j->start = j->own;
	j->end = j->own + len;
}

void jsax_release(struct jsax *j)
{
	free(j->own);
	free(j->stack);
	free(j->tpl);
	j->tpl = NULL;
	buf_release(&j->sbuf);
	j->own = NULL;
	j->stack = NULL;
}

bool jsax_split_room(const struct jsax *j, const char **lo, const char **hi)
{
	*lo = j->p;
	*hi = j->map_end ? j->map_end : j->end;
	return j->map_end || (j->fd < 0 && j->eof);
}

void jsax_init_split(struct jsax *j, const struct jsax *from, const char *at, char kind)
{
	if (from->map_end) {
		size_t left = (size_t)(from->map_end - at);
		uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);

		jsax_init_mem(j, at, left < MAP_WINDOW ? left : MAP_WINDOW, from->name);
		j->map_end = from->map_end;
		j->map_kept = at - (uintptr_t)at % page;
		j->eof = j->end == j->map_end;
	} else {
		jsax_init_mem(j, at, (size_t)(from->end - at), from->name);
	}
	j->base = offset_of(from, at);
	j->stack = xgrow(j->stack, 1, 1, &j->stack_cap);
	j->stack[0] = (uint8_t)kind;
	j->depth = 1;
	j->state = ST_AFTER;
}

void jsax_jump(struct jsax *j, const char *to, uint64_t lines, int64_t line_start)
{
	j->p = to;
	j->tok = NULL;
	j->state = ST_AFTER;
	if (lines) {
		j->line += lines;
		j->line_start = line_start;
	}
	if (j->map_end && j->end <= to) {
		size_t left = (size_t)(j->map_end - to);

		j->end = to + (left < MAP_WINDOW ? left : MAP_WINDOW);
		j->eof = j->end == j->map_end;
	}
}

int jsax_error_at(struct jsax *j, const char *at, const char *what)
{
	int64_t col = offset_of(j, at) - j->line_start + 1;

	return err_set(ERR_PARSE, "%s:%llu:%lld: %s", j->name, (unsigned long long)j->line,
		       (long long)col, what);
}

int jsax_error(struct jsax *j, const char *what)
{
	return jsax_error_at(j, j->tok ? j->tok : j->p, what);
}

/* A mapped file's window moves on, and the pages parsed long ago go back
 * to the kernel. */
static int map_advance(struct jsax *j)
{
	size_t left = (size_t)(j->map_end - j->end);
	size_t behind = (size_t)(j->p - j->map_kept) & ~(size_t)(MAP_DROP - 1);

	if (behind) {
		/* Re-read from the page cache should anything look back. */
		madvise((void *)j->map_kept, behind, MADV_DONTNEED);
		j->map_kept += behind;
	}
	j->end += left < MAP_WINDOW ? left : MAP_WINDOW;
	j->eof = j->end == j->map_end;
	return left > 0;
}

/* Keeps the unread bytes [p, end) and reads more after them. */
int jsax_refill(struct jsax *j)
{
	size_t keep;
	ssize_t n;

	if (j->eof)
		return 0;
	if (j->map_end)
		return map_advance(j);
	keep = (size_t)(j->end - j->p);
	j->base = offset_of(j, j->p);
	if (keep + CHUNK > j->own_cap) {
		/* A single token (a long string) larger than the buffer. */
		char *nb = xmalloc(keep + 2 * CHUNK);

		memcpy(nb, j->p, keep);
		free(j->own);
		j->own = nb;
		j->own_cap = keep + 2 * CHUNK;
	} else if (keep) {
		memmove(j->own, j->p, keep);
	}
	j->p = j->start = j->own;
	j->end = j->own + keep;
	do
		n = read(j->fd, j->own + keep, j->own_cap - keep);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		j->eof = true;
		return err_set(ERR_IO, "%s: cannot read: %s", j->name, strerror(errno));
	}
	if (n == 0)
		j->eof = true;
	j->end += n;
	return (int)(n > 0);
}

/* Skips whitespace; returns the next byte (not consumed) or -1 at the end. */
static int skip_ws(struct jsax *j)
{
	for (;;) {
		const char *p = j->p, *end = j->end;

		while (p < end) {
			unsigned char c = (unsigned char)*p;

			if (c > ' ') {
				j->p = p;
				return c;
			}
			if (c == '\n') {
				j->line++;
				j->line_start = offset_of(j, p + 1);
			} else if (c != ' ' && c != '\t' && c != '\r') {
				j->p = p;
				return c;
			}
			p++;
		}
		j->p = p;
		if (jsax_refill(j) <= 0)
			return -1;
	}
}

static int push(struct jsax *j, uint8_t kind)
{
	if (j->depth >= MAX_DEPTH)
		return jsax_error_at(j, j->p, "nesting too deep");
	j->stack = xgrow(j->stack, 1, j->depth + 1, &j->stack_cap);
	j->stack[j->depth++] = kind;
	return 0;
}

static const char *lex_int_fast(struct jsax *j)
{
	if (j->end - j->p < 32)
		return NULL; /* too close to the buffer's end to load blindly */
	return int_at(j->p, &j->i);
}

static int lex_number(struct jsax *j)
{
	const char *q = lex_int_fast(j);
	int kind;

	if (q) {
		j->raw = j->p;
		j->rawlen = (size_t)(q - j->p);
		j->p = q;
		return JEV_INT;
	}

	for (;;) {
		for (q = j->p; q < j->end; q++) {
			unsigned char c = (unsigned char)*q;

			if (!((c >= '0' && c <= '9') || c == '-' || c == '.' || c == 'e' ||
			      c == 'E' || c == '+'))
				break;
		}
		if (q < j->end || j->eof)
			break;
		if (jsax_refill(j) < 0)
			return ERR_IO;
	}
	kind = numfmt_parse(j->p, (size_t)(q - j->p), &j->i, &j->d);
	if (kind == NUM_BAD)
		return jsax_error_at(j, j->p, "malformed number");
	j->raw = j->p;
	j->rawlen = (size_t)(q - j->p);
	j->p = q;
	return kind == NUM_INT ? JEV_INT : JEV_DBL;
}

/* Reads the string starting at p (a '"'); sets s/slen. */
static int lex_string(struct jsax *j)
{
	for (;;) {
		const char *q = j->p + 1, *end = j->end;
		int r;

		while (q < end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20)
			q++;
		if (q < end && *q == '"') {
			j->s = j->p + 1;
			j->slen = (size_t)(q - j->s);
			j->p = q + 1;
			return 0;
		}
		if (q < end && *q != '\\')
			return jsax_error_at(j, q, "control character in string");
		r = q < end ? jsax_lex_escaped(j, q) : 0;
		if (r < 0)
			return r;
		if (r > 0)
			return 0;
		if (j->eof)
			return jsax_error_at(j, j->end, "unterminated string");
		if (jsax_refill(j) < 0)
			return ERR_IO;
	}
}

static int lex_word(struct jsax *j, const char *word, size_t n, int ev)
{
	while ((size_t)(j->end - j->p) < n && !j->eof)
		if (jsax_refill(j) < 0)
			return ERR_IO;
	if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0)
		return jsax_error_at(j, j->p, "invalid literal");
	j->p += n;
	return ev;
}

/*
 * NaN, Infinity and -Infinity: not JSON, but Python's json module writes
 * them (Perun's moving average leaves NaN where a window had no points),
 * so a Perun profile holds them. They read as doubles; captured text
 * gives them back as null (emit()), which is what our writer says too.
 */
static int lex_nonfinite(struct jsax *j, int c)
{
	bool neg = c == '-';
	const char *word = c == 'N' ? "NaN" : neg ? "-Infinity" : "Infinity";
	size_t n = strlen(word);
	int r = lex_word(j, word, n, JEV_DBL);

	if (r < 0)
		return c == 'N' || c == 'I' ? r : jsax_error_at(j, j->p, "malformed number");
	j->raw = j->p - n;
	j->rawlen = n;
	j->d = c == 'N' ? NAN : neg ? -INFINITY : INFINITY;
	return r;
}

static int lex_value(struct jsax *j, int c)
{
	int r;

	j->state = ST_AFTER;
	switch (c) {
	case '"':
		r = lex_string(j);
		return r < 0 ? r : JEV_STR;
	case '{':
		j->state = ST_OBJ_FIRST;
		if ((r = push(j, '{')) < 0)
			return r;
		j->p++;
		return JEV_OBJ_START;
	case '[':
		j->state = ST_ARR_FIRST;
		if ((r = push(j, '[')) < 0)
			return r;
		j->p++;
		return JEV_ARR_START;
	case 't':
		return lex_word(j, "true", 4, JEV_TRUE);
	case 'f':
		return lex_word(j, "false", 5, JEV_FALSE);
	case 'n':
		return lex_word(j, "null", 4, JEV_NULL);
	case -1:
		return jsax_error_at(j, j->p, "unexpected end of input");
	case 'N':
	case 'I':
		return lex_nonfinite(j, c);
	default:
		if (c == '-' && j->end - j->p < 2 && !j->eof && jsax_refill(j) < 0)
			return ERR_IO;
		if (c == '-' && j->end - j->p >= 2 && j->p[1] == 'I')
			return lex_nonfinite(j, c);
		if (c == '-' || (c >= '0' && c <= '9'))
			return lex_number(j);
		return jsax_error_at(j, j->p, "expected a value");
	}
}

static int lex_key(struct jsax *j, int c)
{
	int r;

	if (c != '"')
		return jsax_error_at(j, j->p,
				     c == '}'  ? "trailing comma before '}'"
				     : c == -1 ? "unexpected end of input"
					       : "expected a string key");
	if ((r = lex_string(j)) < 0)
		return r;
	/* The key may point into the buffer, which a refill would move: only
	 * look past it when the ':' is already here. */
	if (j->p < j->end && *j->p == ':') {
		j->p++;
	} else {
		const char *s = j->s;
		size_t n = j->slen;

		if (s != j->sbuf.data) {
			buf_reset(&j->sbuf);
			buf_add(&j->sbuf, s, n);
		}
		if (skip_ws(j) != ':')
			return jsax_error_at(j, j->p, "expected ':'");
		j->p++;
		j->s = buf_str(&j->sbuf);
		j->slen = n;
	}
	j->state = ST_VALUE;
	return JEV_KEY;
}

static int close_container(struct jsax *j, int ev)
{
	j->depth--;
	j->p++;
	j->state = ST_AFTER;
	return ev;
}

int jsax_next(struct jsax *j)
{
	int c = skip_ws(j);

	j->tok = j->p;
	switch (j->state) {
	case ST_VALUE:
		return lex_value(j, c);
	case ST_ARR_FIRST:
		if (c == ']')
			return close_container(j, JEV_ARR_END);
		return lex_value(j, c);
	case ST_ARR_NEXT:
		if (c == ']')
			return jsax_error_at(j, j->p, "trailing comma before ']'");
		return lex_value(j, c);
	case ST_OBJ_FIRST:
		if (c == '}')
			return close_container(j, JEV_OBJ_END);
		return lex_key(j, c);
	case ST_KEY:
		return lex_key(j, c);
	case ST_AFTER:
		break;
	default:
		return JEV_EOF;
	}
	if (j->depth == 0) {
		if (c != -1)
			return jsax_error_at(j, j->p, "unexpected data after the end");
		j->state = ST_DONE;
		return JEV_EOF;
	}
	if (j->stack[j->depth - 1] == '{') {
		if (c == ',') {
			j->p++;
			return lex_key(j, skip_ws(j));
		}
		if (c == '}')
			return close_container(j, JEV_OBJ_END);
		return jsax_error_at(j, j->p,
				     c == -1 ? "unexpected end of input" : "expected ',' or '}'");
	}
	if (c == ',') {
		j->p++;
		c = skip_ws(j);
		if (c == ']')
			return jsax_error_at(j, j->p, "trailing comma before ']'");
		return lex_value(j, c);
	}
	if (c == ']')
		return close_container(j, JEV_ARR_END);
	return jsax_error_at(j, j->p, c == -1 ? "unexpected end of input" : "expected ',' or ']'");
}

static void emit(struct jsax *j, int ev, struct buf *out, size_t start)
{
	if (ev != JEV_OBJ_END && ev != JEV_ARR_END && out->len > start) {
		char last = out->data[out->len - 1];

		if (last != '[' && last != '{' && last != ':')
			buf_addc(out, ',');
	}
	switch (ev) {
	case JEV_OBJ_START:
		buf_addc(out, '{');
		break;
	case JEV_OBJ_END:
		buf_addc(out, '}');
		break;
	case JEV_ARR_START:
		buf_addc(out, '[');
		break;
	case JEV_ARR_END:
		buf_addc(out, ']');
		break;
	case JEV_KEY:
		buf_add_json_str(out, j->s, j->slen);
		buf_addc(out, ':');
		break;
	case JEV_STR:
		buf_add_json_str(out, j->s, j->slen);
		break;
	case JEV_DBL:
		if (!isfinite(j->d)) {
			buf_adds(out, "null"); /* NaN, Infinity: JSON has no such number */
			break;
		}
		buf_add(out, j->raw, j->rawlen);
		break;
	case JEV_INT:
		buf_add(out, j->raw, j->rawlen);
		break;
	case JEV_TRUE:
		buf_adds(out, "true");
		break;
	case JEV_FALSE:
		buf_adds(out, "false");
		break;
	default:
		buf_adds(out, "null");
		break;
	}
}

static int walk(struct jsax *j, int ev, struct buf *out)
{
	size_t depth = 0, start = out ? out->len : 0;

	for (;;) {
		if (ev < 0)
			return ev;
		if (ev == JEV_EOF)
			return jsax_error_at(j, j->p, "unexpected end of input");
		if (out)
			emit(j, ev, out, start);
		if (ev == JEV_OBJ_START || ev == JEV_ARR_START)
			depth++;
		else if (ev == JEV_OBJ_END || ev == JEV_ARR_END)
			depth--;
		if (depth == 0 && ev != JEV_KEY)
			return 0;
		ev = jsax_next(j);
	}
}

int jsax_skip(struct jsax *j, int ev)
{
	return walk(j, ev, NULL);
}

int jsax_capture(struct jsax *j, int ev, struct buf *out)
{
	return walk(j, ev, out);
}
