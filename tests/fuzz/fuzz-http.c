/*
 * The requests of `veles serve` (src/serve/request.c, request_body.c): the
 * input is a request as it comes off the wire (request line, headers,
 * empty line, body); libmicrohttpd does this split in the server, the
 * parsing after it is ours: the request target's path and query, the
 * headers the server reads, the Last-Event-ID cursor, the JSON bodies of
 * sessions and runs, and a run's environment.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "serve/env.h"
#include "serve/request.h"

enum { MAX_HEADERS = 64 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = (char *)fuzz_text(data, size), *line, *save = NULL;
	char *body = strstr(text, "\r\n\r\n"), *method = NULL, *uri = NULL;
	struct req_header h[MAX_HEADERS];
	struct req_cursor c;
	struct run_req rr;
	struct req r;
	size_t n = 0;

	if (body) {
		*body = '\0';
		body += 4;
	} else {
		body = text + strlen(text);
	}
	/* The request line: METHOD TARGET VERSION. */
	line = strtok_r(text, "\r\n", &save);
	if (line && (uri = strchr(line, ' '))) {
		*uri++ = '\0';
		uri[strcspn(uri, " ")] = '\0';
		method = line;
	}
	for (char *l; n < MAX_HEADERS && (l = strtok_r(NULL, "\r\n", &save));) {
		char *colon = strchr(l, ':');

		if (!colon)
			continue;
		*colon = '\0';
		h[n++] = (struct req_header){l, colon + 1 + strspn(colon + 1, " ")};
	}
	if (req_parse(&r, method ? method : "GET", uri ? uri : "/", h, n, body, strlen(body)) ==
	    0) {
		char *ck = req_cookie(&r, "veles_token_8780");
		double d;
		long long i;

		req_param_double(&r, "from", -1e12, 1e12, 0, &d);
		req_param_int(&r, "points", 1, 20000, 2000, &i);
		req_cursor(r.last_event_id, &c);
		free(ck);
		req_free(&r);
	} else {
		req_free(&r);
	}
	if (run_req_parse(body, strlen(body), &rr) == 0)
		run_req_free(&rr);
	char *title = NULL;
	if (session_req_parse(body, strlen(body), &title) == 0)
		free(title);
	env_check(body);
	return 0;
}
