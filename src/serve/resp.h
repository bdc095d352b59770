/*
 * What a handler answers, independent of libmicrohttpd (http.c turns it
 * into a response): a status, a body in memory, a file, or a stream that
 * a callback fills (Server-Sent Events, generated downloads).
 */
#ifndef SERVE_RESP_H
#define SERVE_RESP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/buf.h"

struct resp_stream {
	/* Fills up to @max bytes of @out; 0: nothing now (for a stream that
	 * waits, call again), -1: the end, -2: an error (the connection is
	 * closed). The callback may block. */
	ssize_t (*read)(void *arg, char *out, size_t max);
	void (*free)(void *arg);
	void *arg;
};

struct resp {
	int status;
	const char *ctype; /* static */
	struct buf body;
	char *file;	  /* a file to send (its size read at send time) */
	bool unlink_file; /* a temporary file: removed once opened */
	char *filename;	  /* attachment name for downloads */
	struct resp_stream stream;
	bool streaming; /* stream set */
	bool sse;
	char *set_cookie, *location;
	bool html; /* an HTML page: the stricter security headers */
	/* A view's standalone page (`show -o x.html`'s) for a frame of the
	 * project's pages: its inline scripts run, sandboxed (no cookie, no
	 * API), and only our own pages may frame it. */
	bool view_page;
};

void resp_free(struct resp *r);
/* A JSON body: @json taken as it is. */
void resp_json(struct resp *r, int status, struct buf *json);
/* {"error": MSG} with @status (a 4xx or 5xx). */
void resp_error(struct resp *r, int status, const char *msg);
/* An HTML error page, the message escaped. */
void resp_error_page(struct resp *r, int status, const char *msg);

#endif
