/* Building responses (resp.h). */
#include <stdlib.h>
#include <string.h>

#include "serve/resp.h"
#include "util/xalloc.h"

void resp_free(struct resp *r)
{
	buf_release(&r->body);
	free(r->file);
	free(r->filename);
	free(r->set_cookie);
	free(r->location);
	if (r->streaming && r->stream.free)
		r->stream.free(r->stream.arg);
	memset(r, 0, sizeof(*r));
}

void resp_json(struct resp *r, int status, struct buf *json)
{
	r->status = status;
	r->ctype = "application/json";
	buf_release(&r->body);
	r->body = *json;
	*json = (struct buf)BUF_INIT;
}

void resp_error(struct resp *r, int status, const char *msg)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "{\"error\":");
	buf_add_json_str(&b, msg, strlen(msg));
	buf_adds(&b, "}\n");
	resp_json(r, status, &b);
}

static const char *status_text(int status)
{
	switch (status) {
	case 400:
		return "Bad request";
	case 401:
		return "Token needed";
	case 403:
		return "Forbidden";
	case 404:
		return "Not found";
	case 405:
		return "Method not allowed";
	case 409:
		return "Conflict";
	case 413:
		return "Too large";
	default:
		return status >= 500 ? "Server error" : "Error";
	}
}

void resp_error_page(struct resp *r, int status, const char *msg)
{
	struct buf b = BUF_INIT;

	buf_addf(&b,
		 "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		 "<title>veles serve: %s</title><style>body{font:15px system-ui,sans-serif;"
		 "margin:3em auto;max-width:40em;color:#222}h1{font-size:1.4em}"
		 "code{background:#eee;padding:0 .2em}</style></head><body>\n<h1>%d %s</h1>\n<p>",
		 status_text(status), status, status_text(status));
	buf_add_xml(&b, msg, 2000);
	buf_adds(&b, "</p>\n");
	if (status == 401)
		buf_adds(&b, "<p>Open the address <code>veles serve</code> printed when it started "
			     "(it ends in <code>?token=...</code>), or add "
			     "<code>?token=TOKEN</code> to this one.</p>\n");
	buf_adds(&b, "<p><a href=\"/\">Sessions</a></p>\n</body></html>\n");
	buf_release(&r->body);
	r->body = b;
	r->status = status;
	r->ctype = "text/html; charset=utf-8";
	r->html = true;
}
