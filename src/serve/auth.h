/*
 * Who may do what. On a loopback address the Host header must name it
 * (no DNS rebinding); with a token (the default), /api/ and downloads
 * need it (cookie, Authorization: Bearer, X-Veles-Token or ?token=);
 * every request that changes state also needs the header X-Veles-CSRF,
 * which a page of another site cannot send without our consent, and an
 * Origin, when given, that is ours.
 */
#ifndef SERVE_AUTH_H
#define SERVE_AUTH_H

#include <stdbool.h>

#include "serve/request.h"
#include "serve/resp.h"
#include "serve/srv.h"

/* The cookie's name: per port, so two servers on one host keep theirs. */
void auth_cookie_name(const struct serve *s, char *out, size_t len);
/* Whether @r carries the token (always true without one). */
bool auth_token_ok(const struct serve *s, const struct req *r);
/* 0 when @r may go on; else @out holds the refusal. @api: under /api/. */
int auth_check(const struct serve *s, const struct req *r, bool api, struct resp *out);

#endif
