/* Token, CSRF and Host checks (auth.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "serve/auth.h"

void auth_cookie_name(const struct serve *s, char *out, size_t len)
{
	snprintf(out, len, "veles_token_%d", s->port);
}

/* Compares without stopping at the first difference (no timing oracle). */
static bool same_secret(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = la != lb;

	for (size_t i = 0; i < la; i++)
		d |= (unsigned char)(a[i] ^ b[i % (lb ? lb : 1)]);
	return d == 0;
}

bool auth_token_ok(const struct serve *s, const struct req *r)
{
	char name[48], *c;
	bool ok;

	if (!s->token_on)
		return true;
	if (r->token)
		return same_secret(r->token, s->token);
	auth_cookie_name(s, name, sizeof(name));
	c = req_cookie(r, name);
	ok = c && same_secret(c, s->token);
	free(c);
	return ok;
}

/* On loopback: Host is one of the loopback names, with our port. */
static bool host_ok(const struct serve *s, const char *host)
{
	static const char *const names[] = {"127.0.0.1", "localhost", "[::1]"};
	char want[64];

	if (!s->loopback)
		return true;
	if (!host)
		return false;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(want, sizeof(want), "%s:%d", names[i], s->port);
		if (strcasecmp(host, want) == 0 ||
		    (s->port == 80 && strcasecmp(host, names[i]) == 0))
			return true;
	}
	return false;
}

/* An Origin (when sent) must be this server as the browser reached it. */
static bool origin_ok(const struct req *r)
{
	const char *o = r->origin;

	if (!o || strcmp(o, "null") == 0)
		return o == NULL;
	if (strncmp(o, "http://", 7) == 0)
		o += 7;
	else if (strncmp(o, "https://", 8) == 0)
		o += 8;
	else
		return false;
	return r->host && strcasecmp(o, r->host) == 0;
}

static int refuse(struct resp *out, bool api, int status, const char *msg)
{
	if (api)
		resp_error(out, status, msg);
	else
		resp_error_page(out, status, msg);
	return -1;
}

int auth_check(const struct serve *s, const struct req *r, bool api, struct resp *out)
{
	if (!host_ok(s, r->host))
		return refuse(out, api, 403,
			      "this server answers only to the loopback names it listens on "
			      "(the Host header names another)");
	if (api && !auth_token_ok(s, r))
		return refuse(out, api, 401, "a token is needed (the one veles serve printed)");
	if (req_writes(r)) {
		if (!r->csrf || !*r->csrf)
			return refuse(out, api, 403,
				      "a request that changes something needs the header "
				      "X-Veles-CSRF: 1");
		if (!origin_ok(r))
			return refuse(out, api, 403, "the request comes from another site");
	}
	return 0;
}
