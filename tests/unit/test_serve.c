/* src/serve without a network: request parsing, the run and session
 * bodies, workload environments, series files and their summaries, the
 * database schema, its model of sessions and runs and the shared run queue.
 * The database tests run on SQLite, and again on PostgreSQL when
 * VELES_TEST_PG names a database (tests/unit/serve-pg.sh starts a server
 * and sets it; without it they are skipped here). */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "serve/db.h"
#include "serve/env.h"
#include "serve/model.h"
#include "serve/queue.h"
#include "serve/request.h"
#include "serve/schema.h"
#include "serve/series.h"
#include "serve/util.h"
#include "testutil.h"
#include "util/error.h"

static int parse(struct req *r, const char *method, const char *uri)
{
	static const struct req_header h[] = {
		{"Host", "127.0.0.1:8780"},
		{"Cookie", "a=1; veles_token_8780=secret; b=2"},
		{"Last-Event-ID", "3.4.5.6"},
	};

	return req_parse(r, method, uri, h, 3, NULL, 0);
}

static void test_request(void **state)
{
	struct req r;
	struct req_cursor c;
	char *ck;
	double d;
	long long n;

	UNUSED(state);
	assert_int_equal(
		parse(&r, "GET", "/api/runs/x%2Fy/series?from=1.5&to=&points=20&q=a+b%20c"), 0);
	assert_int_equal(r.nsegs, 4);
	assert_string_equal(r.segs[2], "x/y"); /* decoded after the split */
	assert_string_equal(req_param(&r, "q"), "a b c");
	assert_string_equal(req_param(&r, "to"), "");
	assert_null(req_param(&r, "nope"));
	assert_true(req_param_double(&r, "from", 0, 10, -1, &d) && d == 1.5);
	assert_true(req_param_double(&r, "to", 0, 10, -1, &d) && d == -1); /* empty: default */
	assert_true(req_param_int(&r, "points", 1, 100, 7, &n) && n == 20);
	assert_false(req_param_int(&r, "points", 1, 10, 7, &n));
	assert_string_equal(r.host, "127.0.0.1:8780");
	ck = req_cookie(&r, "veles_token_8780");
	assert_string_equal(ck, "secret");
	free(ck);
	assert_null(req_cookie(&r, "veles_token_1"));
	assert_false(req_writes(&r));
	req_cursor(r.last_event_id, &c);
	assert_true(c.rows == 3 && c.out == 4 && c.err == 5 && c.hot == 6);
	req_free(&r);
	/* Malformed cursors start over. */
	req_cursor("3.4.5", &c);
	assert_true(c.rows == 0 && c.hot == 0);
	req_cursor("1.2.3.4x", &c);
	assert_true(c.rows == 0);
	req_cursor(NULL, &c);
	assert_true(c.rows == 0);
	/* What is refused. */
	assert_int_equal(parse(&r, "GET", "/a/%zz"), ERR_PARSE);
	req_free(&r);
	assert_int_equal(parse(&r, "GET", "/a/%00"), ERR_PARSE);
	req_free(&r);
	assert_int_equal(parse(&r, "GET", "/a/%4"), ERR_PARSE);
	req_free(&r);
	assert_int_equal(parse(&r, "GET", "/a/../b"), ERR_PARSE);
	req_free(&r);
	assert_int_equal(parse(&r, "GET", "/a/%2e%2e/b"), ERR_PARSE);
	req_free(&r);
	assert_int_equal(parse(&r, "GET", "nope"), ERR_PARSE);
	req_free(&r);
	assert_int_equal(parse(&r, "VERYLONGMETHOD", "/"), ERR_PARSE);
	req_free(&r);
	assert_int_equal(parse(&r, "GET", "/1/2/3/4/5/6/7/8/9"), ERR_PARSE);
	req_free(&r);
	char many[512] = "/?";
	for (int i = 0; i < 40; i++)
		memcpy(many + 2 + 4 * i, "a=1&", 5);
	assert_int_equal(parse(&r, "GET", many), ERR_PARSE);
	req_free(&r);
	/* A token in a header or the query. */
	static const struct req_header auth[] = {{"Authorization", "Bearer abc"}};
	assert_int_equal(req_parse(&r, "POST", "/api/x?token=zzz", auth, 1, "{}", 2), 0);
	assert_string_equal(r.token, "abc");
	assert_true(req_writes(&r));
	req_free(&r);
	assert_int_equal(req_parse(&r, "GET", "/api/x?token=zzz", NULL, 0, NULL, 0), 0);
	assert_string_equal(r.token, "zzz");
	req_free(&r);
}

static void test_run_body(void **state)
{
	struct run_req rr;
	char *title;
	const char *ok = "{\"session\":\"0f8fad5b-d9cb-469f-a165-70867728950e\",\"events\":"
			 "[\"task-clock\",\"page-faults\"],\"command\":\"./w\",\"env\":\"A=1\","
			 "\"interval_ms\":\"10\",\"screen\":{\"x\":[1,2.5,\"s\",true,null]}}";

	UNUSED(state);
	assert_int_equal(run_req_parse(ok, strlen(ok), &rr), 0);
	assert_string_equal(rr.events, "task-clock,page-faults");
	assert_string_equal(rr.tool, "stat");
	assert_int_equal(rr.interval_ms, 10);
	assert_true(rr.streaming);
	assert_string_equal(rr.screen, "{\"x\":[1,2.5,\"s\",true,null]}");
	run_req_free(&rr);
#define BAD(json, what)                                                                            \
	do {                                                                                       \
		const char *b_ = json;                                                             \
		assert_int_equal(run_req_parse(b_, strlen(b_), &rr), ERR_PARSE);                   \
		assert_non_null(strstr(err_msg(), what));                                          \
	} while (0)
	BAD("{\"session\":\"x\",\"events\":[\"a\"],\"command\":\"c\"}", "session");
	BAD("{\"session\":\"0f8fad5b-d9cb-469f-a165-70867728950e\",\"events\":[\"a b\"],"
	    "\"command\":\"c\"}",
	    "events");
	BAD("{\"session\":\"0f8fad5b-d9cb-469f-a165-70867728950e\",\"events\":\"a\","
	    "\"command\":\"c\",\"pid\":5}",
	    "not both");
	BAD("{\"session\":\"0f8fad5b-d9cb-469f-a165-70867728950e\",\"events\":\"a\","
	    "\"command\":\"c\",\"interval_ms\":1.5}",
	    "whole number");
	BAD("{\"session\":\"0f8fad5b-d9cb-469f-a165-70867728950e\",\"events\":\"a\","
	    "\"command\":\"c\",\"streaming\":1}",
	    "true or false");
	BAD("{\"session\":\"0f8fad5b-d9cb-469f-a165-70867728950e\",\"events\":\"a\","
	    "\"command\":\"c\",\"screen\":[]}",
	    "screen");
	BAD("{\"a\":", "not JSON");
	BAD("\"x\"", "object");
	assert_int_equal(session_req_parse("{\"title\":\"t\"}", 13, &title), 0);
	assert_string_equal(title, "t");
	free(title);
	assert_int_equal(session_req_parse("{}", 2, &title), ERR_PARSE);
	assert_null(title);
}

static void test_env(void **state)
{
	char **envp;
	bool a = false, b = false;

	UNUSED(state);
	assert_int_equal(env_check("COUNT=7 THREAD_NUM=12"), 0);
	assert_int_equal(env_check(""), 0);
	assert_int_equal(env_check(NULL), 0);
	assert_int_equal(env_check("=1"), ERR_PARSE);
	assert_int_equal(env_check("A"), ERR_PARSE);
	assert_int_equal(env_check("A-B=1"), ERR_PARSE);
	assert_int_equal(env_check("A='x"), ERR_PARSE);
	setenv("VELES_TEST_OLD", "old", 1);
	assert_int_equal(env_build("VELES_TEST_OLD=new A=\"x \\\"y\\\"\" B='z w' A=last", &envp),
			 0);
	for (char **e = envp; *e; e++) {
		assert_true(strcmp(*e, "VELES_TEST_OLD=old") != 0);
		if (strcmp(*e, "A=last") == 0)
			a = true;
		if (strcmp(*e, "B=z w") == 0)
			b = true;
		assert_true(strncmp(*e, "A=x", 3) != 0); /* the last A wins */
	}
	assert_true(a && b);
	env_free(envp);
}

static void test_series(void **state)
{
	const char *names[] = {"a", "b"}, *units[] = {"msec", ""};
	char *path = xasprintf("%s/s.bin", tmp_base);
	struct series_writer w;
	struct series s;
	struct series_view v;
	double t[4], vals[8], edges[5], sums[2];
	uint64_t counts[4];

	UNUSED(state);
	assert_int_equal(series_create(&w, path, names, units, 2, 1234), 0);
	for (int i = 0; i < 1000; i++) {
		double row[2] = {i % 10 == 0 ? 100 : 1, i == 500 ? NAN : i};

		assert_int_equal(series_append(&w, i * 0.01, row), 0);
	}
	assert_int_equal(series_open(&s, path), 0); /* while it is written */
	assert_int_equal(series_rows(&s), 1000);
	assert_int_equal(series_close(&w), 0);
	assert_string_equal(s.names[1], "b");
	assert_string_equal(s.units[0], "msec");
	assert_int_equal(s.start_ms, 1234);
	assert_int_equal(series_read(&s, 998, 4, t, vals), 2);
	assert_true(t[1] == 9.99 && vals[3] == 999);
	/* Everything fits: exact. */
	assert_int_equal(series_window(&s, 1, 0, 1000, &v), 0);
	assert_true(v.exact && v.n == 1000 && v.rows == 1000);
	series_view_free(&v);
	/* A window: rows with 1 <= t <= 2. */
	assert_int_equal(series_window(&s, 1, 2, 1000, &v), 0);
	assert_true(v.exact && v.n == 101 && v.t[0] == 1.0);
	series_view_free(&v);
	/* Summarised: at most two points a bucket, peaks kept. */
	assert_int_equal(series_window(&s, 1, 0, 10, &v), 0);
	assert_false(v.exact);
	assert_true(v.n <= 20 && v.n >= 10);
	double top = 0;
	for (size_t i = 0; i < v.n; i++)
		top = fmax(top, v.v[i * 2]);
	assert_true(top == 100);
	series_view_free(&v);
	assert_int_equal(series_histogram(&s, 0, 4, edges, counts), 0);
	assert_true(edges[0] == 1 && edges[4] == 100);
	assert_int_equal(counts[0], 900);
	assert_int_equal(counts[3], 100);
	assert_int_equal(series_sums(&s, sums), 0);
	assert_true(sums[0] == 900 + 100 * 100);
	assert_true(sums[1] == 999 * 1000 / 2 - 500); /* the NaN left out */
	series_free(&s);
	/* A torn row at the end is not a row; a file that is none is refused. */
	FILE *f = fopen(path, "ae");
	fwrite("torn", 1, 4, f);
	fclose(f);
	assert_int_equal(series_open(&s, path), 0);
	assert_int_equal(series_rows(&s), 1000);
	series_free(&s);
	assert_int_equal(series_open(&s, "/etc/hostname"), ERR_PARSE);
	assert_int_equal(series_open(&s, "/no/such/file"), ERR_NOTFOUND);
	free(path);
}

static int count_rows(void *arg, const struct db_row *row)
{
	UNUSED(row);
	(*(int *)arg)++;
	return 0;
}

static bool on_pg(void **state)
{
	return strcmp(*state, "pg") == 0;
}

/* An empty database on the test's backend: on SQLite the file @name in the
 * test's folder (its URL begins with @prefix), on PostgreSQL VELES_TEST_PG
 * with its tables dropped. */
static struct db *fresh_db(void **state, const char *prefix, const char *name)
{
	struct db *db;

	if (on_pg(state)) {
		const char *url = getenv("VELES_TEST_PG");

		if (!url || !*url)
			skip();
		assert_int_equal(db_open(url, &db), 0);
		assert_int_equal(db_script(db, "DROP TABLE IF EXISTS run_events, runs, sessions, "
					       "ix_state, ix_versions, ix_refs, ix_profiles, "
					       "ix_series, ix_points, ix_verdicts, "
					       "schema_version CASCADE"),
				 0);
	} else {
		char *url = xasprintf("%s%s/%s", prefix, tmp_base, name);

		unlink(strchr(url, '/'));
		assert_int_equal(db_open(url, &db), 0);
		free(url);
	}
	return db;
}

static void test_schema(void **state)
{
	struct db *db = fresh_db(state, "sqlite:", "db/serve.db");
	const char *title = "it's";
	int from, n = 0;
	int64_t v;

	assert_string_equal(db_backend_name(db), on_pg(state) ? "postgresql" : "sqlite");
	assert_int_equal(schema_migrate(db, &from), 0);
	assert_int_equal(from, 0);
	assert_int_equal(schema_migrate(db, &from), 0); /* again: nothing to do */
	assert_int_equal(from, schema_latest());
	assert_int_equal(db_query_int(db, "SELECT version FROM schema_version", NULL, 0, -1, &v),
			 0);
	assert_int_equal(v, schema_latest());
	assert_int_equal(db_query(db, "SELECT * FROM schema_version", NULL, 0, count_rows, &n), 0);
	assert_int_equal(n, 1);
	/* A transaction rolled back leaves nothing. */
	assert_int_equal(db_begin(db), 0);
	assert_int_equal(db_exec(db, "INSERT INTO sessions (id, title, created) VALUES ('x','t',1)",
				 NULL, 0, NULL),
			 0);
	db_rollback(db);
	assert_int_equal(db_query_int(db, "SELECT COUNT(*) FROM sessions", NULL, 0, -1, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(db_exec(db, "UPDATE schema_version SET version = 42", NULL, 0, NULL), 0);
	assert_int_equal(schema_migrate(db, &from), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "schema 42, from a newer veles"));
	assert_int_equal(db_exec(db, "SELECT nonsense FROM nowhere", NULL, 0, NULL), ERR_IO);
	/* The handle still works after an error; a ? in quotes is text, not a
	 * parameter. */
	assert_int_equal(db_exec(db,
				 "INSERT INTO sessions (id, title, created) VALUES (?, 'a ? b', 1)",
				 &DB_TEXT(title), 1, NULL),
			 0);
	assert_int_equal(
		db_query_int(db, "SELECT COUNT(*) FROM sessions WHERE title = 'a ? b' AND id = ?",
			     &DB_TEXT(title), 1, -1, &v),
		0);
	assert_int_equal(v, 1);
	db_close(db);
	assert_int_equal(db_open("postgresql://veles@/veles?host=/nonexistent/veles", &db), ERR_IO);
	assert_non_null(strstr(err_msg(), "cannot connect to postgresql://veles@/veles"));
	assert_int_equal(db_open("postgresql://me:secret@/x?host=/nonexistent/veles", &db), ERR_IO);
	assert_null(strstr(err_msg(), "secret")); /* a password is never shown */
	assert_int_equal(db_open("mysql://x/y", &db), ERR_INVALID);
}

static void use(void *arg, const char *event, int64_t uses)
{
	if (strcmp(event, "task-clock") == 0)
		*(int64_t *)arg = uses;
}

static void test_model(void **state)
{
	struct db *db = fresh_db(state, "", "model.db");
	struct srv_session s, *ss;
	struct srv_run r = {0}, r2 = {0}, got, *rs;
	size_t n;
	int from;
	bool found;
	int64_t pos, uses = 0;

	assert_int_equal(schema_migrate(db, &from), 0);
	assert_int_equal(model_session_create(db, "Loops 100%_done", &s), 0);
	assert_true(srv_is_uuid(s.id));
	assert_int_equal(model_sessions_list(db, "100%_", &ss, &n), 0);
	assert_int_equal(n, 1); /* LIKE's own characters are plain text here */
	srv_sessions_free(ss, n);
	assert_int_equal(model_sessions_list(db, "100%x", &ss, &n), 0);
	assert_int_equal(n, 0);
	srv_sessions_free(ss, n);
	memcpy(r.session, s.id, sizeof(r.session));
	snprintf(r.tool, sizeof(r.tool), "stat");
	r.events = xstrdup("task-clock,page-faults,task-clock");
	r.command = xstrdup("true");
	r.env = xstrdup("");
	r.screen = xstrdup("{}");
	r2 = r;
	r2.events = xstrdup("task-clock");
	r2.command = xstrdup("false");
	r2.env = xstrdup("");
	r2.screen = xstrdup("{}");
	assert_int_equal(model_run_insert(db, &r), 0);
	assert_int_equal(model_run_insert(db, &r2), 0);
	assert_true(r2.seq > r.seq);
	assert_int_equal(model_run_next(db, &got, &found), 0);
	assert_true(found);
	assert_string_equal(got.id, r.id);
	srv_run_clear(&got);
	assert_int_equal(model_run_position(db, r2.seq, &pos), 0);
	assert_int_equal(pos, 1);
	assert_int_equal(model_run_start(db, r.id, 10), 0);
	assert_int_equal(model_run_start(db, r.id, 10), ERR_CONFLICT);
	assert_int_equal(model_run_start(db, r2.id, 10), ERR_CONFLICT); /* one at a time */
	assert_int_equal(model_run_cancel_queued(db, r.id, 11), ERR_CONFLICT);
	snprintf(r.state, sizeof(r.state), "done");
	r.has_exit = true;
	r.exit_status = 3;
	r.ended = 12;
	assert_int_equal(model_run_finish(db, &r), 0);
	assert_int_equal(model_run_get(db, r.id, &got), 0);
	assert_string_equal(got.state, "done");
	assert_int_equal(got.exit_status, 3);
	assert_string_equal(got.events, "task-clock,page-faults,task-clock");
	srv_run_clear(&got);
	assert_int_equal(model_run_position(db, r2.seq, &pos), 0);
	assert_int_equal(pos, 0);
	assert_int_equal(model_event_uses(db, s.id, use, &uses), 0);
	assert_int_equal(uses, 2); /* twice in the first run counts once */
	assert_int_equal(model_runs_list(db, s.id, "queued", &rs, &n), 0);
	assert_int_equal(n, 1);
	srv_runs_free(rs, n);
	assert_int_equal(model_run_start(db, r2.id, 20), 0);
	assert_int_equal(model_runs_abandoned(db, 30, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(model_run_get(db, r2.id, &got), 0);
	assert_string_equal(got.state, "failed");
	srv_run_clear(&got);
	/* A session goes with its runs. */
	assert_int_equal(model_session_delete(db, s.id), 0);
	assert_int_equal(model_run_get(db, r.id, &got), ERR_NOTFOUND);
	assert_int_equal(model_session_delete(db, s.id), ERR_NOTFOUND);
	srv_run_clear(&r);
	srv_run_clear(&r2);
	srv_session_clear(&s);
	db_close(db);
}

/* A queued run of @session running @command. */
static void queue_run(struct db *db, const char *session, const char *command, char id[37])
{
	struct srv_run r = {0};

	memcpy(r.session, session, sizeof(r.session));
	snprintf(r.tool, sizeof(r.tool), "stat");
	r.events = xstrdup("task-clock");
	r.command = xstrdup(command);
	r.env = xstrdup("");
	r.screen = xstrdup("{}");
	assert_int_equal(model_run_insert(db, &r), 0);
	memcpy(id, r.id, 37);
	srv_run_clear(&r);
}

static void expect_state(struct db *db, const char *id, const char *state)
{
	struct srv_run got;

	assert_int_equal(model_run_get(db, id, &got), 0);
	assert_string_equal(got.state, state);
	srv_run_clear(&got);
}

/* Claims as @runner at @now; the run's id into @id ("" when none). */
static void claim(struct db *db, const char *runner, int64_t now, char id[37])
{
	struct srv_run r;
	bool found;

	assert_int_equal(queue_claim(db, runner, now, 1000, &r, &found), 0);
	snprintf(id, 37, "%s", found ? r.id : "");
	if (found)
		assert_string_equal(r.state, "running");
	srv_run_clear(&r);
}

static void test_queue(void **state)
{
	struct db *db = fresh_db(state, "sqlite:", "queue.db");
	struct srv_session s;
	char r1[37], r2[37], r3[37], got[37];
	struct srv_run fin = {0};
	size_t back, failed;
	int from;

	assert_int_equal(schema_migrate(db, &from), 0);
	assert_int_equal(model_session_create(db, "queue", &s), 0);
	queue_run(db, s.id, "echo 1", r1);
	queue_run(db, s.id, "echo 2", r2);
	queue_run(db, s.id, "echo 3", r3);
	/* First come, first claimed; a runner holds one run at a time. */
	claim(db, "a", 100, got);
	assert_string_equal(got, r1);
	claim(db, "a", 100, got);
	assert_string_equal(got, "");
	claim(db, "b", 100, got);
	assert_string_equal(got, r2);
	/* Only the holder renews. */
	assert_int_equal(queue_renew(db, r1, "b", 5000), ERR_CONFLICT);
	assert_int_equal(queue_renew(db, r1, "a", 5000), 0);
	/* b went silent: its lease (until 1100) expires, a's does not. */
	assert_int_equal(queue_expire(db, 2000, &back, &failed), 0);
	assert_int_equal(back, 1);
	assert_int_equal(failed, 0);
	expect_state(db, r2, "queued");
	expect_state(db, r1, "running");
	/* b's late end is refused: the run is the queue's again. */
	memcpy(fin.id, r2, 37);
	snprintf(fin.state, sizeof(fin.state), "done");
	fin.ended = 2100;
	assert_int_equal(queue_finish(db, &fin, "b"), ERR_CONFLICT);
	memcpy(fin.id, r1, 37);
	assert_int_equal(queue_finish(db, &fin, "a"), 0);
	expect_state(db, r1, "done");
	assert_int_equal(queue_finish(db, &fin, "a"), ERR_CONFLICT); /* once */
	/* r2 again (its second claim), then lost twice more: failed. */
	for (int k = 0; k < QUEUE_ATTEMPTS - 1; k++) {
		claim(db, "c", 3000 + k, got);
		assert_string_equal(got, r2);
		assert_int_equal(queue_expire(db, 9000 + k, &back, &failed), 0);
		assert_int_equal(back + failed, 1);
		assert_int_equal(failed, k == QUEUE_ATTEMPTS - 2);
	}
	expect_state(db, r2, "failed");
	/* A runner that restarts gives back at once what it held. */
	claim(db, "c", 20000, got);
	assert_string_equal(got, r3);
	assert_int_equal(queue_recover(db, "d", 20001, &back, &failed), 0);
	assert_int_equal(back + failed, 0);
	assert_int_equal(queue_recover(db, "c", 20001, &back, &failed), 0);
	assert_int_equal(back, 1);
	expect_state(db, r3, "queued");
	srv_session_clear(&s);
	db_close(db);
}

/* A runner outside the project leaves the project's jobs (tool "job") to
 * one in it, and takes the runs queued behind them. */
static void test_queue_jobs(void **state)
{
	struct db *db = fresh_db(state, "sqlite:", "jobs.db");
	struct srv_session s;
	struct srv_run job = {0}, r;
	char run[37];
	bool found;
	int from;

	assert_int_equal(schema_migrate(db, &from), 0);
	assert_int_equal(model_session_create(db, "Project jobs: p", &s), 0);
	memcpy(job.session, s.id, sizeof(job.session));
	snprintf(job.tool, sizeof(job.tool), "job");
	job.events = xstrdup("matrix");
	job.command = xstrdup("veles run matrix -m 0123456");
	job.env = xstrdup("");
	job.screen = xstrdup("{\"kind\":\"matrix\",\"version\":\"0123456\"}");
	assert_int_equal(model_run_insert(db, &job), 0);
	queue_run(db, s.id, "echo after", run);
	assert_int_equal(queue_claim_for(db, "plain", 100, 1000, false, &r, &found), 0);
	assert_true(found);
	assert_string_equal(r.id, run);
	srv_run_clear(&r);
	assert_int_equal(queue_claim_for(db, "other", 100, 1000, false, &r, &found), 0);
	assert_false(found);
	assert_int_equal(queue_claim_for(db, "inproject", 100, 1000, true, &r, &found), 0);
	assert_true(found);
	assert_string_equal(r.id, job.id);
	assert_string_equal(r.tool, "job");
	srv_run_clear(&r);
	srv_run_clear(&job);
	srv_session_clear(&s);
	db_close(db);
}

enum { CLAIMERS = 4, CLAIMED_RUNS = 60 };

struct claimer {
	const char *url;
	char name[8];
	char ids[CLAIMED_RUNS][37];
	size_t n;
	int err;
};

/* One runner of many on its own connection: claims and finishes until the
 * queue is empty. */
static void *claimer(void *arg)
{
	struct claimer *c = arg;
	struct db *db;

	if ((c->err = db_open(c->url, &db)) < 0)
		return NULL;
	for (;;) {
		struct srv_run r;
		bool found;

		if ((c->err = queue_claim(db, c->name, srv_now_ms(), 60000, &r, &found)) < 0 ||
		    !found)
			break;
		snprintf(r.state, sizeof(r.state), "done");
		c->err = queue_finish(db, &r, c->name);
		if (c->err == 0 && c->n < CLAIMED_RUNS)
			memcpy(c->ids[c->n++], r.id, 37);
		srv_run_clear(&r);
		if (c->err < 0)
			break;
	}
	db_close(db);
	return NULL;
}

/* Runners racing on one queue: each run done once, none left. */
static void test_queue_race(void **state)
{
	struct db *db = fresh_db(state, "sqlite:", "race.db");
	char *url = on_pg(state) ? xstrdup(getenv("VELES_TEST_PG"))
				 : xasprintf("sqlite:%s/race.db", tmp_base);
	static struct claimer c[CLAIMERS];
	pthread_t th[CLAIMERS];
	struct srv_session s;
	char ids[CLAIMED_RUNS][37];
	size_t total = 0;
	int from;
	int64_t left;

	assert_int_equal(schema_migrate(db, &from), 0);
	assert_int_equal(model_session_create(db, "race", &s), 0);
	for (int i = 0; i < CLAIMED_RUNS; i++)
		queue_run(db, s.id, "true", ids[i]);
	for (int k = 0; k < CLAIMERS; k++) {
		memset(&c[k], 0, sizeof(c[k]));
		c[k].url = url;
		snprintf(c[k].name, sizeof(c[k].name), "r%d", k);
		assert_int_equal(pthread_create(&th[k], NULL, claimer, &c[k]), 0);
	}
	for (int k = 0; k < CLAIMERS; k++) {
		pthread_join(th[k], NULL);
		assert_int_equal(c[k].err, 0);
		total += c[k].n;
	}
	assert_int_equal(total, CLAIMED_RUNS);
	for (int i = 0; i < CLAIMED_RUNS; i++) {
		int seen = 0;

		for (int k = 0; k < CLAIMERS; k++)
			for (size_t j = 0; j < c[k].n; j++)
				seen += strcmp(c[k].ids[j], ids[i]) == 0;
		assert_int_equal(seen, 1);
	}
	assert_int_equal(db_query_int(db, "SELECT COUNT(*) FROM runs WHERE state <> 'done'", NULL,
				      0, -1, &left),
			 0);
	assert_int_equal(left, 0);
	srv_session_clear(&s);
	db_close(db);
	free(url);
}

/* PostgreSQL: a row another transaction holds is skipped, not waited for. */
static void test_queue_skip_locked(void **state)
{
	struct db *a = fresh_db(state, NULL, NULL), *b;
	struct srv_session s;
	char r1[37], r2[37], got[37];
	const char *first = r1;
	int from;

	assert_int_equal(schema_migrate(a, &from), 0);
	assert_int_equal(db_open(getenv("VELES_TEST_PG"), &b), 0);
	assert_int_equal(model_session_create(a, "locks", &s), 0);
	queue_run(a, s.id, "echo 1", r1);
	queue_run(a, s.id, "echo 2", r2);
	assert_int_equal(db_begin(a), 0);
	assert_int_equal(
		db_exec(a, "SELECT id FROM runs WHERE id = ? FOR UPDATE", &DB_TEXT(first), 1, NULL),
		0);
	claim(b, "b", 100, got);
	assert_string_equal(got, r2);
	db_rollback(a);
	claim(b, "c", 100, got);
	assert_string_equal(got, r1);
	srv_session_clear(&s);
	db_close(b);
	db_close(a);
}

/* A test on one backend, named after both. */
#define ON(f, backend)                                                                             \
	{                                                                                          \
#f " on " backend, f, NULL, NULL, backend                                          \
	}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request),
		cmocka_unit_test(test_run_body),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_series),
		/* Each database test on both backends. */
		ON(test_schema, "sqlite"),
		ON(test_schema, "pg"),
		ON(test_model, "sqlite"),
		ON(test_model, "pg"),
		ON(test_queue, "sqlite"),
		ON(test_queue, "pg"),
		ON(test_queue_jobs, "sqlite"),
		ON(test_queue_jobs, "pg"),
		ON(test_queue_race, "sqlite"),
		ON(test_queue_race, "pg"),
		ON(test_queue_skip_locked, "pg"),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
