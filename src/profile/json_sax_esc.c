/*
 * The JSON tokenizer's slow path for strings with escapes (json_sax.c
 * takes the plain ones in place): \n, \uXXXX and surrogate pairs decoded
 * into the token's own buffer as UTF-8.
 */
#include <stdint.h>

#include "profile/json_sax.h"
#include "profile/json_sax_priv.h"
#include "util/buf.h"
#include "util/common.h"

static int hexval(const char *s)
{
	int v = 0, i;

	for (i = 0; i < 4; i++) {
		int d = hex_digit(s[i]);

		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	return v;
}

static void put_utf8(struct buf *b, uint32_t cp)
{
	char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	buf_add(b, u, n);
}

/* Decodes the escape at @q (a backslash); returns its length, 0 if the
 * input ends inside it, negative on a bad escape. */
static int unescape(struct jsax *j, const char *q)
{
	size_t left = (size_t)(j->end - q);
	int cp, lo;

	if (left < 2)
		return 0;
	switch (q[1]) {
	case '"':
		buf_addc(&j->sbuf, '"');
		return 2;
	case '\\':
		buf_addc(&j->sbuf, '\\');
		return 2;
	case '/':
		buf_addc(&j->sbuf, '/');
		return 2;
	case 'b':
		buf_addc(&j->sbuf, '\b');
		return 2;
	case 'f':
		buf_addc(&j->sbuf, '\f');
		return 2;
	case 'n':
		buf_addc(&j->sbuf, '\n');
		return 2;
	case 'r':
		buf_addc(&j->sbuf, '\r');
		return 2;
	case 't':
		buf_addc(&j->sbuf, '\t');
		return 2;
	case 'u':
		break;
	default:
		return jsax_error_at(j, q, "invalid escape in string");
	}
	if (left < 6)
		return 0;
	cp = hexval(q + 2);
	if (cp < 0)
		return jsax_error_at(j, q, "invalid \\u escape in string");
	if (cp >= 0xd800 && cp < 0xdc00) {
		/* A high surrogate pairs with a following \uDC00..\uDFFF; a lone
		 * one becomes U+FFFD, as most decoders do. */
		if (left < 12 && !j->eof)
			return 0;
		if (left >= 12 && q[6] == '\\' && q[7] == 'u' && (lo = hexval(q + 8)) >= 0xdc00 &&
		    lo < 0xe000) {
			put_utf8(&j->sbuf, 0x10000 + (((uint32_t)cp - 0xd800) << 10) +
						   ((uint32_t)lo - 0xdc00));
			return 12;
		}
		cp = 0xfffd;
	} else if (cp >= 0xdc00 && cp < 0xe000) {
		cp = 0xfffd;
	}
	put_utf8(&j->sbuf, (uint32_t)cp);
	return 6;
}

/* The slow path: a string with escapes, decoded into sbuf. */
int jsax_lex_escaped(struct jsax *j, const char *q)
{
	const char *from = j->p + 1;

	buf_reset(&j->sbuf);
	buf_add(&j->sbuf, from, (size_t)(q - from));
	for (;;) {
		const char *run = q;
		int n;

		while (q < j->end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20)
			q++;
		buf_add(&j->sbuf, run, (size_t)(q - run));
		if (q == j->end)
			return 0;
		if (*q == '"')
			break;
		if (*q != '\\')
			return jsax_error_at(j, q, "control character in string");
		n = unescape(j, q);
		if (n <= 0)
			return n;
		q += n;
	}
	j->s = buf_str(&j->sbuf);
	j->slen = j->sbuf.len;
	j->p = q + 1;
	return 1;
}
