/* libmicrohttpd glue (http.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serve/api.h"
#include "serve/http.h"
#include "serve/lazy.h"
#include "serve/request.h"
#include "util/error.h"
#include "util/xalloc.h"

enum { MAX_HEADERS = 64, THREAD_STACK = 256 * 1024, MAX_CONNECTIONS = 256, IDLE_TIMEOUT_S = 60 };

/* One request in progress: the raw address and the body as it arrives. */
struct conn {
	char *uri;
	struct buf body;
	bool too_large;
	bool started;
};

struct headers {
	struct req_header v[MAX_HEADERS];
	size_t n;
};

static enum MHD_Result take_header(void *cls, enum MHD_ValueKind kind, const char *key,
				   const char *value)
{
	struct headers *h = cls;

	(void)kind;
	if (h->n < MAX_HEADERS)
		h->v[h->n++] = (struct req_header){key, value};
	return MHD_YES;
}

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *con)
{
	struct conn *c = xcalloc(1, sizeof(*c));

	(void)cls;
	(void)con;
	c->uri = xstrdup(uri ? uri : "/");
	return c;
}

static void on_done(void *cls, struct MHD_Connection *con, void **con_cls,
		    enum MHD_RequestTerminationCode why)
{
	struct conn *c = *con_cls;

	(void)cls;
	(void)con;
	(void)why;
	if (!c)
		return;
	free(c->uri);
	buf_release(&c->body);
	free(c);
	*con_cls = NULL;
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct resp_stream *st = cls;
	ssize_t n;

	(void)pos;
	/* 0 would make libmicrohttpd call again at once: a stream waits in
	 * its callback instead, so 0 only comes from a callback that has
	 * nothing but has not ended; ask again after a short pause. */
	while ((n = st->read(st->arg, buf, max)) == 0)
		usleep(1000);
	if (n == -1)
		return MHD_CONTENT_READER_END_OF_STREAM;
	return n < 0 ? MHD_CONTENT_READER_END_WITH_ERROR : n;
}

static void stream_free(void *cls)
{
	struct resp_stream *st = cls;

	if (st->free)
		st->free(st->arg);
	free(st);
}

static struct MHD_Response *file_response(struct resp *r)
{
	int fd = open(r->file, O_RDONLY | O_CLOEXEC);
	struct stat st;
	struct MHD_Response *m;

	if (r->unlink_file)
		unlink(r->file);
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		resp_error(r, 404, "the file is gone");
		return NULL;
	}
	m = MHD_create_response_from_fd64((uint64_t)st.st_size, fd);
	if (!m)
		close(fd);
	return m;
}

static void security_headers(struct MHD_Response *m, const struct resp *r)
{
	MHD_add_response_header(m, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(m, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(m, "X-Frame-Options", r->view_page ? "SAMEORIGIN" : "DENY");
	if (r->view_page)
		MHD_add_response_header(m, "Content-Security-Policy",
					"default-src 'none'; script-src 'unsafe-inline'; "
					"style-src 'unsafe-inline'; img-src data:; "
					"base-uri 'none'; form-action 'none'; "
					"frame-ancestors 'self'; sandbox allow-scripts");
	else if (r->html)
		MHD_add_response_header(m, "Content-Security-Policy",
					"default-src 'self'; img-src 'self' data: blob:; "
					"style-src 'self' 'unsafe-inline'; object-src 'none'; "
					"base-uri 'none'; frame-ancestors 'none'");
}

/* The response of @r as libmicrohttpd's (taking the body or stream). */
static struct MHD_Response *build(struct resp *r)
{
	struct MHD_Response *m = NULL;

	if (r->file)
		m = file_response(r);
	if (!m && r->streaming && !r->file) {
		struct resp_stream *st = xmalloc(sizeof(*st));

		*st = r->stream;
		r->streaming = false; /* the response frees it now */
		m = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 32 * 1024, stream_read, st,
						      stream_free);
		if (!m)
			stream_free(st);
	}
	if (!m) {
		size_t len;
		char *body = buf_detach(&r->body, &len);

		m = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
		if (!m)
			free(body);
	}
	if (!m)
		return NULL;
	if (r->ctype)
		MHD_add_response_header(m, "Content-Type", r->ctype);
	security_headers(m, r);
	MHD_add_response_header(m, "Cache-Control", r->sse ? "no-store" : "no-cache");
	if (r->sse)
		MHD_add_response_header(m, "X-Accel-Buffering", "no");
	if (r->set_cookie)
		MHD_add_response_header(m, "Set-Cookie", r->set_cookie);
	if (r->location)
		MHD_add_response_header(m, "Location", r->location);
	if (r->filename) {
		char *cd = xasprintf("attachment; filename=\"%s\"", r->filename);

		MHD_add_response_header(m, "Content-Disposition", cd);
		free(cd);
	}
	return m;
}

static enum MHD_Result answer(struct serve *s, struct MHD_Connection *con, const char *method,
			      struct conn *c)
{
	struct headers h = {.n = 0};
	struct req rq;
	struct resp rs = {0};
	struct MHD_Response *m;
	enum MHD_Result ok;

	MHD_get_connection_values(con, MHD_HEADER_KIND, take_header, &h);
	if (c->too_large)
		resp_error(&rs, 413, "the request's body is too large");
	else if (req_parse(&rq, method, c->uri, h.v, h.n, c->body.data, c->body.len) < 0)
		resp_error(&rs, 400, err_msg());
	else
		api_dispatch(s, &rq, &rs);
	if (!c->too_large)
		req_free(&rq);
	if (!rs.status)
		rs.status = 500;
	m = build(&rs);
	if (!m) {
		resp_free(&rs);
		return MHD_NO;
	}
	ok = MHD_queue_response(con, (unsigned)rs.status, m);
	MHD_destroy_response(m);
	resp_free(&rs);
	return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *con, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct conn *c = *con_cls;

	(void)url;
	(void)version;
	if (!c)
		return MHD_NO;
	if (!c->started) { /* the first call: headers only */
		c->started = true;
		return MHD_YES;
	}
	if (*upload_size) {
		if (c->body.len + *upload_size > REQ_MAX_BODY)
			c->too_large = true;
		else
			buf_add(&c->body, upload, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	return answer(cls, con, method, c);
}

int http_parse_listen(const char *listen, char **host, int *port)
{
	const char *colon;
	char *end;
	long p;

	if (listen[0] == '[') {
		const char *close = strchr(listen, ']');

		if (!close || close[1] != ':')
			return err_set(ERR_INVALID, "--listen %s: use [ADDRESS]:PORT", listen);
		*host = xstrndup(listen + 1, (size_t)(close - listen - 1));
		colon = close + 1;
	} else {
		colon = strrchr(listen, ':');
		if (!colon)
			return err_set(ERR_INVALID, "--listen %s: use ADDRESS:PORT", listen);
		*host = xstrndup(listen, (size_t)(colon - listen));
	}
	errno = 0;
	p = strtol(colon + 1, &end, 10);
	if (!colon[1] || *end || errno || p < 0 || p > 65535) {
		free(*host);
		*host = NULL;
		return err_set(ERR_INVALID, "--listen %s: bad port", listen);
	}
	*port = (int)p;
	return 0;
}

/* @host as a socket address (numeric, or "localhost"). */
static int address(const char *host, int port, struct sockaddr_storage *sa, bool *loopback)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)sa;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)sa;
	const char *h = strcmp(host, "localhost") == 0 ? "127.0.0.1" : host;

	memset(sa, 0, sizeof(*sa));
	if (inet_pton(AF_INET, h, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)port);
		*loopback = (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
		return 0;
	}
	if (inet_pton(AF_INET6, h, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)port);
		*loopback = IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
		return 0;
	}
	return err_set(ERR_INVALID, "--listen: '%s' is not a numeric address (or localhost)", host);
}

int http_start(struct serve *s, const char *listen)
{
	struct sockaddr_storage sa;
	const union MHD_DaemonInfo *info;
	unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD;
	int ret = lazy_load_mhd();

	if (ret == 0)
		ret = http_parse_listen(listen, &s->host, &s->port);
	if (ret == 0)
		ret = address(s->host, s->port, &sa, &s->loopback);
	if (ret < 0)
		return ret;
	if (sa.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	s->mhd = MHD_start_daemon(
		flags, (uint16_t)s->port, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR, &sa,
		MHD_OPTION_URI_LOG_CALLBACK, on_uri, NULL, MHD_OPTION_NOTIFY_COMPLETED, on_done,
		NULL, MHD_OPTION_CONNECTION_LIMIT, (unsigned)MAX_CONNECTIONS,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IDLE_TIMEOUT_S,
		MHD_OPTION_THREAD_STACK_SIZE, (size_t)THREAD_STACK,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024), MHD_OPTION_END);
	if (!s->mhd)
		return err_set(ERR_IO, "cannot listen on %s: %s", listen,
			       errno ? strerror(errno) : "the address is taken or not ours");
	info = MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_BIND_PORT);
	if (info && info->port)
		s->port = info->port;
	return 0;
}

void http_stop(struct serve *s)
{
	if (s->mhd)
		MHD_stop_daemon(s->mhd);
	s->mhd = NULL;
}
