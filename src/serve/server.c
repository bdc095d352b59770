/* Starting and stopping the server (serve.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "project/project.h"
#include "serve/exec.h"
#include "serve/http.h"
#include "serve/model.h"
#include "serve/queue.h"
#include "serve/schema.h"
#include "serve/srv.h"
#include "serve/util.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

void srv_log(struct serve *s, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (!s->log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	s->log(s->log_arg, line);
}

char *srv_run_dir(const struct serve *s, const char *id)
{
	return xasprintf("%s/%s", s->runs_dir, id);
}

/* A token is short enough to type, long enough not to guess (192 bits). */
static int set_token(struct serve *s, const struct serve_opts *o)
{
	if (o->token) {
		size_t n = strlen(o->token);

		if (n < 16 || n >= sizeof(s->token))
			return err_set(ERR_INVALID, "the token must have 16 to %zu characters",
				       sizeof(s->token) - 1);
		for (const char *c = o->token; *c; c++)
			if ((unsigned char)*c <= ' ' || *c == ';' || *c == ',' || *c == '"' ||
			    (unsigned char)*c >= 0x7f)
				return err_set(ERR_INVALID,
					       "the token may hold only printable ASCII without "
					       "spaces, quotes, commas or semicolons");
		memcpy(s->token, o->token, n + 1);
		s->token_on = true;
		return 0;
	}
	if (o->no_token)
		return 0;
	s->token_on = true;
	return srv_random_hex(s->token, 24);
}

/* What a previous server left: as a runner, the runs it held go back to
 * the queue (those of other runners wait for their leases), unless
 * another process on this machine runs one now (then it may be one of
 * them: their leases decide); the queued ones wait for a runner. */
static int recover(struct serve *s)
{
	struct srv_run *v;
	size_t n, back = 0, failed = 0;
	int ret = s->runner && exec_machine_idle()
			  ? queue_recover(s->db, s->runner, srv_now_ms(), &back, &failed)
			  : 0;

	if (ret == 0 && back + failed)
		srv_log(s,
			"%zu run(s) were running when the last server stopped: %zu back in the "
			"queue, %zu failed (claimed %d times)",
			back + failed, back, failed, QUEUE_ATTEMPTS);
	if (ret == 0)
		ret = model_runs_list(s->db, NULL, "queued", &v, &n);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < n; i++)
		live_add(&s->live, v[i].id);
	srv_runs_free(v, n);
	return 0;
}

/* Whether and as whom this server executes runs. */
static int set_runner(struct serve *s, const struct serve_opts *o)
{
	char host[256];

	s->lease_ms = 1000 * (int64_t)(o->lease_s > 0 ? o->lease_s : SERVE_DEFAULT_LEASE_S);
	if (!o->runner && !o->no_http && strcmp(db_backend_name(s->db), "sqlite") != 0)
		return 0;
	if (o->runner_name) {
		if (!*o->runner_name || strlen(o->runner_name) > SRV_RUNNER_LEN)
			return err_set(ERR_INVALID, "a runner's name has 1 to %d characters",
				       SRV_RUNNER_LEN);
		s->runner = xstrdup(o->runner_name);
		return 0;
	}
	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "localhost");
	host[SRV_RUNNER_LEN] = '\0';
	s->runner = xstrdup(host);
	return 0;
}

static int open_db(struct serve *s, const struct serve_opts *o)
{
	char *url = o->db_url ? xstrdup(o->db_url) : xasprintf("%s/serve.db", s->data_dir);
	int from, ret = db_open(url, &s->db);

	if (ret == 0 && (ret = schema_migrate(s->db, &from)) == 0 && from && from < schema_latest())
		srv_log(s, "database migrated from schema %d to %d", from, schema_latest());
	free(url);
	return ret < 0 ? ret : set_runner(s, o);
}

static int open_project(struct serve *s, const char *dir)
{
	s->proj = xcalloc(1, sizeof(*s->proj));
	return project_open(dir, s->proj);
}

static int start(struct serve *s, const struct serve_opts *o)
{
	const char *listen = o->listen ? o->listen : SERVE_DEFAULT_LISTEN;
	char *host;
	int port, ret;

	/* Refused before anything is written or bound. */
	if (!o->no_http && (ret = http_parse_listen(listen, &host, &port)) < 0)
		return ret;
	if (!o->no_http)
		free(host);
	if (!o->no_http && (ret = set_token(s, o)) < 0)
		return ret;
	if (mkdir_p(s->runs_dir) < 0)
		return err_prefix(ERR_IO, "cannot make %s", s->runs_dir);
	if ((ret = open_db(s, o)) < 0 || (ret = recover(s)) < 0)
		return ret;
	if (o->project_dir && (ret = open_project(s, o->project_dir)) < 0)
		return ret;
	if (o->no_http)
		return exec_start(s);
	if ((ret = http_start(s, listen)) < 0)
		return ret;
	if (!s->loopback && !s->token_on)
		return err_set(ERR_INVALID,
			       "listening on %s (not a loopback address) needs a token: drop "
			       "--no-token, or give --token-file",
			       s->host);
	s->url = strchr(s->host, ':') ? xasprintf("http://[%s]:%d/", s->host, s->port)
				      : xasprintf("http://%s:%d/", s->host, s->port);
	return exec_start(s);
}

int serve_start(const struct serve_opts *o, struct serve **out)
{
	struct serve *s = xcalloc(1, sizeof(*s));
	int ret;

	s->data_dir = xstrdup(o->data_dir);
	s->read_only = o->read_only;
	s->runs_dir = xasprintf("%s/runs", o->data_dir);
	s->log = o->log;
	s->log_arg = o->log_arg;
	s->run_ended = o->run_ended;
	s->run_ended_arg = o->run_ended_arg;
	live_registry_init(&s->live);
	pthread_mutex_init(&s->perf_mu, NULL);
	pthread_mutex_init(&s->proj_mu, NULL);
	ret = start(s, o);
	if (ret < 0) {
		serve_stop(s);
		return ret;
	}
	*out = s;
	return 0;
}

const char *serve_runner(const struct serve *s)
{
	return s->runner;
}

const char *serve_url(const struct serve *s)
{
	return s->url;
}

const char *serve_token(const struct serve *s)
{
	return s->token_on ? s->token : NULL;
}

void serve_stop(struct serve *s)
{
	if (!s)
		return;
	s->stopping = 1;
	exec_stop(s);
	live_wake_all(&s->live);
	http_stop(s);
	live_registry_free(&s->live);
	db_close(s->db);
	pthread_mutex_destroy(&s->perf_mu);
	if (s->proj)
		project_release(s->proj);
	free(s->proj);
	pthread_mutex_destroy(&s->proj_mu);
	free(s->events_json);
	free(s->data_dir);
	free(s->runs_dir);
	free(s->host);
	free(s->url);
	free(s->runner);
	free(s);
}
