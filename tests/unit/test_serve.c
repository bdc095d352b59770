/* src/serve without a network: request parsing, the run and session
 * bodies, workload environments, series files and their summaries, the
 * database schema and its model of sessions and runs. */
#include <math.h>
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

static void test_schema(void **state)
{
	char *path = xasprintf("sqlite:%s/db/serve.db", tmp_base);
	struct db *db;
	int from, n = 0;
	int64_t v;

	UNUSED(state);
	assert_int_equal(db_open(path, &db), 0);
	assert_string_equal(db_backend_name(db), "sqlite");
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
	db_close(db);
	assert_int_equal(db_open("postgresql://x/y", &db), ERR_INVALID);
	assert_int_equal(db_open("mysql://x/y", &db), ERR_INVALID);
	free(path);
}

static void use(void *arg, const char *event, int64_t uses)
{
	if (strcmp(event, "task-clock") == 0)
		*(int64_t *)arg = uses;
}

static void test_model(void **state)
{
	char *path = xasprintf("%s/model.db", tmp_base);
	struct db *db;
	struct srv_session s, *ss;
	struct srv_run r = {0}, r2 = {0}, got, *rs;
	size_t n;
	int from;
	bool found;
	int64_t pos, uses = 0;

	UNUSED(state);
	assert_int_equal(db_open(path, &db), 0);
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
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request), cmocka_unit_test(test_run_body),
		cmocka_unit_test(test_env),	cmocka_unit_test(test_series),
		cmocka_unit_test(test_schema),	cmocka_unit_test(test_model),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
