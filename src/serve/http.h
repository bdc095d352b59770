/* The HTTP side (libmicrohttpd): listening, reading each request into the
 * parser (request.h), and sending what api_dispatch answered. */
#ifndef SERVE_HTTP_H
#define SERVE_HTTP_H

#include "serve/srv.h"

/* Binds @listen (ADDR:PORT or [ADDR]:PORT); s->port, s->host, s->loopback
 * set. One thread per connection: a live stream may block its own. */
int http_start(struct serve *s, const char *listen);
void http_stop(struct serve *s);
/* Splits @listen; ERR_INVALID saying what is wrong. */
int http_parse_listen(const char *listen, char **host, int *port);

#endif
