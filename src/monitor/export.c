/* --export: lexpr, graphite and prometheus (see export.h). */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "monitor/export.h"
#include "monitor/format.h"
#include "util/common.h"

/*
 * "HOST:PORT", "[IPV6]:PORT", or with @bare_port a lone "PORT" (*@host
 * NULL). The port is a number from 1 to 65535. -1 with a message naming
 * @form when @addr is none of those.
 */
static int split_address(const char *addr, bool bare_port, const char *form, char **host,
			 char **port)
{
	const char *colon = strrchr(addr, ':'), *p, *h = addr;
	size_t hlen = colon ? (size_t)(colon - addr) : 0;
	unsigned long v;
	char *end;

	*host = *port = NULL;
	if (addr[0] == '[') {
		const char *close = strchr(addr, ']');

		if (!close || close[1] != ':')
			return err_set(ERR_INVALID, "bad address '%s' (%s)", addr, form);
		h = addr + 1;
		hlen = (size_t)(close - h);
		colon = close + 1;
	} else if (colon && strchr(addr, ':') != colon) {
		return err_set(ERR_INVALID,
			       "bad address '%s': an IPv6 address goes in brackets, "
			       "[ADDR]:PORT",
			       addr);
	} else if (!colon && !bare_port) {
		return err_set(ERR_INVALID, "bad address '%s' (%s)", addr, form);
	}
	p = colon ? colon + 1 : addr;
	errno = 0;
	v = strtoul(p, &end, 10);
	if ((colon && hlen == 0) || !*p || *end || *p == '-' || *p == '+' || errno || v < 1 ||
	    v > 65535)
		return err_set(ERR_INVALID, "bad address '%s' (%s)", addr, form);
	if (colon)
		*host = xstrndup(h, hlen);
	*port = xstrdup(p);
	return 0;
}

int mon_export_parse(struct mon_export *e, const char *spec)
{
	const char *comma = strchr(spec, ',');
	size_t kn = comma ? (size_t)(comma - spec) : strlen(spec);
	const char *addr = comma ? comma + 1 : "";
	int ret = 0;

	memset(e, 0, sizeof(*e));
	e->fd = e->listen_fd = -1;
	if (kn == 5 && !memcmp(spec, "lexpr", 5))
		e->kind = EXPORT_LEXPR;
	else if (kn == 8 && !memcmp(spec, "graphite", 8))
		e->kind = EXPORT_GRAPHITE;
	else if (kn == 10 && !memcmp(spec, "prometheus", 10))
		e->kind = EXPORT_PROMETHEUS;
	else
		return err_set(ERR_INVALID, "unknown export '%.*s' (lexpr, graphite, prometheus)",
			       (int)kn, spec);
	if (e->kind == EXPORT_PROMETHEUS) {
		if (!*addr)
			return err_set(ERR_INVALID,
				       "prometheus needs a port: prometheus,[ADDR:]PORT");
		ret = split_address(addr, true, "prometheus,[ADDR:]PORT", &e->host, &e->port);
		/* Loopback unless told: the page is served to whoever connects. */
		if (ret == 0 && !e->host)
			e->host = xstrdup("127.0.0.1");
	} else if (*addr) {
		ret = split_address(addr, false, "HOST:PORT", &e->host, &e->port);
	} else if (e->kind == EXPORT_GRAPHITE) {
		return err_set(ERR_INVALID, "graphite needs an address: graphite,HOST:PORT");
	}
	if (ret < 0) {
		free(e->host);
		free(e->port);
		e->host = e->port = NULL;
	}
	return ret;
}

static int connect_to(const char *host, const char *port)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res, *ai;
	int fd = -1, rc = getaddrinfo(host, port, &hints, &res);

	if (rc)
		return err_set(ERR_IO, "cannot resolve %s: %s", host, gai_strerror(rc));
	for (ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	return fd >= 0 ? fd
		       : err_set(ERR_IO, "cannot connect to %s%s%s:%s: %s",
				 strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "",
				 port, strerror(errno));
}

/* A listening socket on @host (an address, or a name resolved to one)
 * and @port: the first of the addresses it resolves to that binds. */
static int listen_on(const char *host, const char *port)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_PASSIVE | AI_NUMERICSERV},
			*res, *ai;
	int one = 1, fd = -1, err = 0, rc = getaddrinfo(host, port, &hints, &res);

	if (rc)
		return err_set(ERR_IO, "cannot listen on %s port %s: %s", host, port,
			       gai_strerror(rc));
	for (ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd >= 0)
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (fd >= 0 && (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 16) < 0)) {
			err = errno;
			close(fd);
			fd = -1;
		} else if (fd < 0) {
			err = errno;
		}
	}
	freeaddrinfo(res);
	if (fd < 0)
		return err_set(ERR_IO, "cannot listen on %s port %s: %s", host, port,
			       strerror(err));
	return fd;
}

int mon_export_open(struct mon_export *e, FILE *terminal)
{
	char *dot;

	e->terminal = terminal;
	gethostname(e->host_prefix, sizeof(e->host_prefix) - 1);
	dot = strchr(e->host_prefix, '.'); /* graphite paths use dots */
	if (dot)
		*dot = '\0';
	if (e->kind == EXPORT_PROMETHEUS) {
		e->listen_fd = listen_on(e->host, e->port);
		return e->listen_fd < 0 ? e->listen_fd : 0;
	}
	if (e->host) {
		e->fd = connect_to(e->host, e->port);
		return e->fd < 0 ? e->fd : 0;
	}
	return 0;
}

static int send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return err_set(ERR_IO, "export: cannot send: %s", strerror(errno));
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The name of a "name value" line: all before the last space, as a
 * module's name may hold spaces. Its length; *@value is the rest. */
static size_t split_line(const char *l, size_t n, const char **value)
{
	size_t sp = n;

	while (sp && l[sp - 1] != ' ')
		sp--;
	if (!sp) { /* no value: the whole line is the name */
		*value = l + n;
		return n;
	}
	*value = l + sp;
	return sp - 1;
}

/* A Graphite path: dots separate its parts and stay; letters, digits, '_'
 * and '-' stay; anything else (spaces, '/', ':') becomes '_'. */
static void graphite_name(struct buf *b, const char *name, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';

		buf_addc(b, ok ? c : '_');
	}
}

/* A Prometheus metric name matches [a-zA-Z_:][a-zA-Z0-9_:]*: the "veles_"
 * prefix keeps a digit from leading, and everything else becomes '_'. */
static void prometheus_name(struct buf *b, const char *name, size_t n)
{
	buf_adds(b, "veles_");
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_' || c == ':';

		buf_addc(b, ok ? c : '_');
	}
}

/* "cpu.user 3" lines as graphite's "HOST.cpu.user 3 TIME". */
static void to_graphite(struct mon_export *e, long t)
{
	for (const char *l = e->values.data; l && *l;) {
		size_t n = strcspn(l, "\n");
		const char *v;
		size_t nn = split_line(l, n, &v);

		graphite_name(&e->out, e->host_prefix, strlen(e->host_prefix));
		buf_addc(&e->out, '.');
		graphite_name(&e->out, l, nn);
		buf_addf(&e->out, " %.*s %ld\n", (int)(l + n - v), v, t);
		l += n + (l[n] == '\n');
	}
}

/* As Prometheus's text format: "# TYPE veles_cpu_user gauge", then
 * "veles_cpu_user{host="h"} 3". Every value is a gauge: counters arrive
 * as rates already. */
static void to_prometheus(struct mon_export *e)
{
	buf_reset(&e->metrics);
	for (const char *l = e->values.data; l && *l;) {
		size_t n = strcspn(l, "\n"), start;
		const char *v;
		size_t nn = split_line(l, n, &v);

		buf_adds(&e->metrics, "# TYPE ");
		start = e->metrics.len;
		prometheus_name(&e->metrics, l, nn);
		buf_addf(&e->metrics, " gauge\n%.*s{host=\"", (int)(e->metrics.len - start),
			 e->metrics.data + start);
		/* A label value is quoted: only '"', '\\' and newlines need care. */
		for (const char *h = e->host_prefix; *h; h++)
			buf_addc(&e->metrics, *h == '"' || *h == '\\' ? '_' : *h);
		buf_addf(&e->metrics, "\"} %.*s\n", (int)(l + n - v), v);
		l += n + (l[n] == '\n');
	}
}

int mon_export_interval(struct mon_export *e, struct mon_out *o, const struct mon_interval *iv)
{
	buf_reset(&e->values);
	buf_reset(&e->out);
	mon_out_values(o, iv, &e->values);
	switch (e->kind) {
	case EXPORT_LEXPR:
		buf_adds(&e->out, "sample.time ");
		buf_grow(&e->out, 34);
		e->out.len += mon_fmt_fixed(e->out.data + e->out.len, iv->cur->t, 3);
		buf_addc(&e->out, '\n');
		buf_add(&e->out, e->values.data, e->values.len);
		break;
	case EXPORT_GRAPHITE:
		to_graphite(e, (long)iv->cur->t);
		break;
	case EXPORT_PROMETHEUS:
		to_prometheus(e);
		return 0;
	}
	if (e->fd >= 0)
		return send_all(e->fd, e->out.data, e->out.len);
	fwrite(e->out.data, 1, e->out.len, e->terminal);
	fflush(e->terminal);
	return 0;
}

/* Answers one HTTP request with the latest metrics (any path but
 * /metrics is a 404). */
static void serve(struct mon_export *e, int fd)
{
	char req[2048];
	struct pollfd p = {fd, POLLIN, 0};
	ssize_t n = poll(&p, 1, 1000) > 0 ? recv(fd, req, sizeof(req) - 1, 0) : -1;
	struct buf r = BUF_INIT;
	bool ok;

	if (n <= 0)
		return;
	req[n] = '\0';
	ok = !strncmp(req, "GET /metrics ", 13) || !strncmp(req, "GET /metrics?", 13);
	buf_addf(&r,
		 "HTTP/1.0 %s\r\nContent-Type: text/plain; version=0.0.4\r\n"
		 "Content-Length: %zu\r\nConnection: close\r\n\r\n",
		 ok ? "200 OK" : "404 Not Found", ok ? e->metrics.len : 10);
	if (ok)
		buf_add(&r, e->metrics.data, e->metrics.len);
	else
		buf_adds(&r, "not found\n");
	send_all(fd, r.data, r.len);
	buf_release(&r);
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void mon_export_wait(struct mon_export *e, double deadline)
{
	double left;

	if (e->listen_fd < 0)
		return;
	/* At least one look, with no wait when the deadline has passed
	 * (-i 0, playback): a request is answered in every mode. */
	do {
		struct pollfd p = {e->listen_fd, POLLIN, 0};
		int fd, ms;

		left = deadline - mono_now();
		ms = left > 0 ? (int)(left * 1000) + 1 : 0;
		if (poll(&p, 1, ms) <= 0)
			return; /* the deadline, or a signal: the caller checks */
		fd = accept4(e->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0) {
			serve(e, fd);
			close(fd);
		}
	} while (left > 0);
}

void mon_export_close(struct mon_export *e)
{
	if (e->fd >= 0)
		close(e->fd);
	if (e->listen_fd >= 0)
		close(e->listen_fd);
	free(e->host);
	free(e->port);
	buf_release(&e->values);
	buf_release(&e->out);
	buf_release(&e->metrics);
}
