/* --dict FILE: tokens for the dictionary rules (mutate.h). */
#include <stdlib.h>
#include <string.h>

#include "fuzz/mutate.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

/* Longer tokens are more likely a mistake (a whole file) than a keyword. */
#define DICT_TOKEN_MAX 4096

static void add_token(struct fz_dict *d, const uint8_t *t, size_t n)
{
	d->tok = xrealloc(d->tok, (d->n + 1) * sizeof(*d->tok));
	d->len = xrealloc(d->len, (d->n + 1) * sizeof(*d->len));
	d->tok[d->n] = xmalloc(n + 1);
	memcpy(d->tok[d->n], t, n);
	d->tok[d->n][n] = 0;
	d->len[d->n++] = n;
}

/* The quoted value from @q (just past the opening quote) to the closing
 * one, escapes decoded into @out. */
static int unquote(const char *q, const char *end, struct buf *out, const char *name, size_t lineno)
{
	for (; q < end && *q != '"'; q++) {
		int hi, lo;

		if (*q != '\\') {
			buf_addc(out, *q);
			continue;
		}
		if (q + 1 < end && (q[1] == '\\' || q[1] == '"')) {
			buf_addc(out, *++q);
			continue;
		}
		if (q + 3 < end && q[1] == 'x' && (hi = hex_digit(q[2])) >= 0 &&
		    (lo = hex_digit(q[3])) >= 0) {
			buf_addc(out, (char)(hi * 16 + lo));
			q += 3;
			continue;
		}
		return err_set(ERR_PARSE,
			       "%s:%zu: bad escape in a dictionary token (\\\\, \\\" or \\xNN)",
			       name, lineno);
	}
	if (q >= end)
		return err_set(ERR_PARSE, "%s:%zu: the dictionary token has no closing quote", name,
			       lineno);
	return 0;
}

static int parse_line(const char *s, const char *end, struct fz_dict *d, const char *name,
		      size_t lineno)
{
	const char *q;
	struct buf b = BUF_INIT;
	int ret = 0;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	if (s == end || *s == '#')
		return 0;
	q = memchr(s, '"', (size_t)(end - s));
	/* AFL's form ends with the closing quote; anything else is literal. */
	if (q && end[-1] == '"' && end - 1 > q)
		ret = unquote(q + 1, end, &b, name, lineno);
	else
		buf_add(&b, s, (size_t)(end - s));
	if (ret == 0 && b.len > DICT_TOKEN_MAX)
		ret = err_set(ERR_PARSE, "%s:%zu: a dictionary token is longer than %d bytes", name,
			      lineno, DICT_TOKEN_MAX);
	if (ret == 0 && b.len)
		add_token(d, (const uint8_t *)b.data, b.len);
	buf_release(&b);
	return ret;
}

int fz_dict_parse(const char *text, size_t len, const char *name, struct fz_dict *d)
{
	const char *p = text, *end = text + len;
	size_t lineno = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		int ret = parse_line(p, e, d, name, ++lineno);

		if (ret < 0)
			return ret;
		p = nl ? nl + 1 : end;
	}
	if (!d->n)
		return err_set(ERR_PARSE, "%s: the dictionary has no tokens", name);
	return 0;
}

int fz_dict_load(const char *path, struct fz_dict *d)
{
	struct buf b = BUF_INIT;
	int ret = file_read_all(path, &b);

	if (ret == 0)
		ret = fz_dict_parse(b.data ? b.data : "", b.len, path, d);
	buf_release(&b);
	return ret;
}

void fz_dict_release(struct fz_dict *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->tok[i]);
	free(d->tok);
	free(d->len);
	memset(d, 0, sizeof(*d));
}
