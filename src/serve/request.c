/* Parsing requests (request.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "serve/request.h"
#include "serve/util.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/xalloc.h"

/* @n bytes of @s percent-decoded (and '+' as space in a query); NULL with
 * a message on a bad escape or a NUL. */
static char *decode(const char *s, size_t n, bool query)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == '%') {
			int hi = i + 2 < n ? hex_digit(s[i + 1]) : -1;
			int lo = i + 2 < n ? hex_digit(s[i + 2]) : -1;

			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
				buf_release(&b);
				err_set(ERR_PARSE, "bad escape in the request's address");
				return NULL;
			}
			buf_addc(&b, (char)(hi * 16 + lo));
			i += 2;
		} else if (c == '+' && query) {
			buf_addc(&b, ' ');
		} else if (c == '\0') {
			buf_release(&b);
			err_set(ERR_PARSE, "a NUL in the request's address");
			return NULL;
		} else {
			buf_addc(&b, c);
		}
	}
	return buf_detach(&b, NULL);
}

/* The raw path cut at '/', each part decoded after the cut (an encoded
 * slash stays inside its part). */
static int split_path(struct req *r, const char *p, size_t len)
{
	const char *end = p + len;

	if (len == 0 || *p != '/')
		return err_set(ERR_PARSE, "the address must start with /");
	while (p < end) {
		size_t n;
		char *seg;

		while (p < end && *p == '/')
			p++;
		if (p == end)
			break;
		n = (size_t)(end - p);
		if (memchr(p, '/', n))
			n = (size_t)((const char *)memchr(p, '/', n) - p);
		if (r->nsegs == REQ_MAX_SEGS)
			return err_set(ERR_PARSE, "too many parts in the address");
		if (!(seg = decode(p, n, false)))
			return ERR_PARSE;
		r->segs[r->nsegs++] = seg;
		if (strcmp(seg, ".") == 0 || strcmp(seg, "..") == 0)
			return err_set(ERR_PARSE, "'.' and '..' are not allowed in addresses");
		p += n;
	}
	return 0;
}

static int split_query(struct req *r, const char *q)
{
	while (*q) {
		size_t n = strcspn(q, "&"), k = strcspn(q, "=");
		char *name, *value;

		if (n == 0) {
			q++;
			continue;
		}
		if (r->nparams == REQ_MAX_PARAMS)
			return err_set(ERR_PARSE, "too many query parameters");
		if (k > n)
			k = n;
		name = decode(q, k, true);
		value = name ? decode(q + k + (k < n), n - k - (k < n), true) : NULL;
		if (!value) {
			free(name);
			return ERR_PARSE;
		}
		r->params[r->nparams++] = (struct req_param){name, value};
		q += n + (q[n] == '&');
	}
	return 0;
}

char *req_cookie(const struct req *r, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = r->cookies; p && *p;) {
		while (*p == ' ' || *p == ';')
			p++;
		if (strncmp(p, name, len) == 0 && p[len] == '=')
			return xstrndup(p + len + 1, strcspn(p + len + 1, ";"));
		p += strcspn(p, ";");
	}
	return NULL;
}

static void take_header(struct req *r, const char *name, const char *value)
{
	char **slot = NULL;

	if (strcasecmp(name, "Host") == 0)
		slot = &r->host;
	else if (strcasecmp(name, "Origin") == 0)
		slot = &r->origin;
	else if (strcasecmp(name, "X-Veles-CSRF") == 0)
		slot = &r->csrf;
	else if (strcasecmp(name, "Last-Event-ID") == 0)
		slot = &r->last_event_id;
	else if (strcasecmp(name, "Content-Type") == 0)
		slot = &r->content_type;
	else if (strcasecmp(name, "Cookie") == 0)
		slot = &r->cookies;
	if (slot && !*slot) {
		*slot = xstrdup(value);
		return;
	}
	if (r->token)
		return;
	if (strcasecmp(name, "X-Veles-Token") == 0)
		r->token = xstrdup(value);
	else if (strcasecmp(name, "Authorization") == 0 &&
		 (strncasecmp(value, "Bearer ", 7) == 0 || strncasecmp(value, "token ", 6) == 0))
		r->token = xstrdup(value + strcspn(value, " ") + 1);
}

int req_parse(struct req *r, const char *method, const char *uri, const struct req_header *hdrs,
	      size_t nhdrs, const char *body, size_t len)
{
	size_t plen;
	int ret;

	memset(r, 0, sizeof(*r));
	if (strlen(method) >= sizeof(r->method))
		return err_set(ERR_PARSE, "unknown method");
	memcpy(r->method, method, strlen(method) + 1);
	if (strlen(uri) > REQ_MAX_URI)
		return err_set(ERR_PARSE, "the address is longer than %d bytes", REQ_MAX_URI);
	if (len > REQ_MAX_BODY)
		return err_set(ERR_PARSE, "the body is longer than %d bytes", REQ_MAX_BODY);
	plen = strcspn(uri, "?#");
	if (!(r->path = decode(uri, plen, false)))
		return ERR_PARSE;
	if ((ret = split_path(r, uri, plen)) < 0)
		return ret;
	if (uri[plen] == '?') {
		char *q = xstrndup(uri + plen + 1, strcspn(uri + plen + 1, "#"));

		ret = split_query(r, q);
		free(q);
		if (ret < 0)
			return ret;
	}
	for (size_t i = 0; i < nhdrs; i++)
		if (hdrs[i].name && hdrs[i].value)
			take_header(r, hdrs[i].name, hdrs[i].value);
	if (!r->token && req_param(r, "token"))
		r->token = xstrdup(req_param(r, "token"));
	r->body = body;
	r->body_len = len;
	return 0;
}

void req_free(struct req *r)
{
	free(r->path);
	for (size_t i = 0; i < r->nsegs; i++)
		free(r->segs[i]);
	for (size_t i = 0; i < r->nparams; i++) {
		free(r->params[i].name);
		free(r->params[i].value);
	}
	free(r->host);
	free(r->origin);
	free(r->csrf);
	free(r->last_event_id);
	free(r->content_type);
	free(r->cookies);
	free(r->token);
	memset(r, 0, sizeof(*r));
}

bool req_is(const struct req *r, const char *method)
{
	return strcmp(r->method, method) == 0 ||
	       (strcmp(method, "GET") == 0 && strcmp(r->method, "HEAD") == 0);
}

const char *req_param(const struct req *r, const char *name)
{
	for (size_t i = 0; i < r->nparams; i++)
		if (strcmp(r->params[i].name, name) == 0)
			return r->params[i].value;
	return NULL;
}

bool req_param_double(const struct req *r, const char *name, double lo, double hi, double def,
		      double *out)
{
	const char *v = req_param(r, name);
	char *end;
	double d;

	*out = def;
	if (!v || !*v)
		return true;
	errno = 0;
	d = strtod(v, &end);
	if (*end || errno || !isfinite(d) || d < lo || d > hi) {
		err_set(ERR_PARSE, "bad %s '%.40s'", name, v);
		return false;
	}
	*out = d;
	return true;
}

bool req_param_int(const struct req *r, const char *name, long long lo, long long hi, long long def,
		   long long *out)
{
	const char *v = req_param(r, name);
	char *end;
	long long n;

	*out = def;
	if (!v || !*v)
		return true;
	errno = 0;
	n = strtoll(v, &end, 10);
	if (*end || errno || n < lo || n > hi) {
		err_set(ERR_PARSE, "bad %s '%.40s'", name, v);
		return false;
	}
	*out = n;
	return true;
}

bool req_writes(const struct req *r)
{
	return strcmp(r->method, "GET") != 0 && strcmp(r->method, "HEAD") != 0;
}

void req_cursor(const char *id, struct req_cursor *c)
{
	unsigned long long v[4];
	const char *p = id;

	memset(c, 0, sizeof(*c));
	if (!p)
		return;
	for (int i = 0; i < 4; i++) {
		char *end;

		if (*p < '0' || *p > '9')
			return;
		errno = 0;
		v[i] = strtoull(p, &end, 10);
		if (errno || *end != (i < 3 ? '.' : '\0'))
			return;
		p = end + 1;
	}
	*c = (struct req_cursor){v[0], v[1], v[2], v[3]};
}
