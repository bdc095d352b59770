/* What the server's answers share (serve/api.h): the list of runs behind
 * GET /api/runs, /api/queue and /api/project/jobs, a run's outcome, and a
 * string member. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "serve/api.h"
#include "util/buf.h"

/* Runs 1, 2, 3 (oldest first, as the model lists them), 2 queued. */
static void runs(struct srv_run v[3])
{
	memset(v, 0, 3 * sizeof(*v));
	for (int i = 0; i < 3; i++) {
		snprintf(v[i].id, sizeof(v[i].id), "r%d", i + 1);
		snprintf(v[i].state, sizeof(v[i].state), "%s", i == 1 ? "queued" : "done");
	}
}

static void id_json(struct serve *s, const struct srv_run *run, struct buf *b)
{
	(void)s;
	buf_addf(b, "\"%s\"", run->id);
}

static bool in_state(const struct srv_run *run, const void *arg)
{
	return strcmp(run->state, arg) == 0;
}

static void listed(const struct api_run_list *l, size_t n, const char *want)
{
	struct srv_run v[3];
	struct buf b = BUF_INIT;

	runs(v);
	api_run_list_json(NULL, v, n, l, &b);
	assert_string_equal(buf_str(&b), want);
	buf_release(&b);
}

static void test_lists(void **state)
{
	struct api_run_list l = {.key = "runs", .json = id_json};

	(void)state;
	listed(&l, 3, "\"runs\":[\"r1\",\n\"r2\",\n\"r3\"]");
	listed(&l, 0, "\"runs\":[]");
	l.newest_first = true;
	listed(&l, 3, "\"runs\":[\"r3\",\n\"r2\",\n\"r1\"]");
	l = (struct api_run_list){.key = "q", .keep = in_state, .arg = "done", .json = id_json};
	listed(&l, 3, "\"q\":[\"r1\",\n\"r3\"]");
	l.newest_first = true;
	listed(&l, 3, "\"q\":[\"r3\",\n\"r1\"]");
	/* None kept: an empty list, no stray separator. */
	l.arg = "running";
	listed(&l, 3, "\"q\":[]");
	l.arg = "queued";
	listed(&l, 3, "\"q\":[\"r2\"]");
}

static void test_members(void **state)
{
	struct srv_run run = {0};
	struct buf b = BUF_INIT;

	(void)state;
	api_json_str(&b, "a", "say \"hi\"");
	api_json_str(&b, "b", NULL);
	assert_string_equal(buf_str(&b), ",\"a\":\"say \\\"hi\\\"\",\"b\":null");
	buf_reset(&b);
	/* Not ended yet, on no runner. */
	api_run_outcome_json(&run, &b);
	assert_string_equal(buf_str(&b), ",\"exit_status\":null,\"error\":null,\"runner\":null");
	buf_reset(&b);
	run.has_exit = true;
	run.exit_status = 3;
	run.error = (char *)"exit 3";
	snprintf(run.runner, sizeof(run.runner), "host-1");
	api_run_outcome_json(&run, &b);
	assert_string_equal(buf_str(&b),
			    ",\"exit_status\":3,\"error\":\"exit 3\",\"runner\":\"host-1\"");
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_members),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
