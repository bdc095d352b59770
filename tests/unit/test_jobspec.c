/* A project job's description (src/serve/jobspec.c): the request's
 * checks, the JSON the queue keeps, the command line a runner starts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "serve/jobspec.h"
#include "util/buf.h"
#include "util/error.h"

static int parse(const char *body, struct jobspec *js)
{
	return jobspec_parse_request(body, strlen(body), js);
}

static void refused(const char *body, const char *says)
{
	struct jobspec js;

	assert_int_equal(parse(body, &js), ERR_PARSE);
	if (!strstr(err_msg(), says))
		fail_msg("%s: %s", body, err_msg());
}

static void test_request(void **state)
{
	struct jobspec js;

	(void)state;
	assert_int_equal(parse("{\"kind\":\"matrix\",\"version\":\"HEAD~1\"}", &js), 0);
	assert_int_equal(js.kind, JOB_MATRIX);
	assert_string_equal(js.version, "HEAD~1");
	jobspec_free(&js);
	assert_int_equal(parse("{\"kind\":\"remeasure\",\"version\":\"v1\",\"max_rounds\":\"12\","
			       "\"time\":2.5,\"on\":\"real\"}",
			       &js),
			 0);
	assert_int_equal(js.max_rounds, 12);
	assert_true(js.seconds == 2.5);
	jobspec_free(&js);
	refused("[]", "JSON object");
	refused("{\"version\":\"x\"}", "kind must be");
	refused("{\"kind\":\"run\",\"version\":\"x\"}", "no job kind 'run'");
	refused("{\"kind\":\"matrix\"}", "version is required");
	refused("{\"kind\":\"matrix\",\"version\":1}", "version must be a string");
	refused("{\"kind\":\"matrix\",\"version\":\"x\",\"good\":\"y\"}", "are for a bisect job");
	refused("{\"kind\":\"matrix\",\"version\":\"x\",\"max_rounds\":3}", "for a remeasure job");
	refused("{\"kind\":\"remeasure\",\"version\":\"x\",\"max_rounds\":0}", "from 1 to");
	refused("{\"kind\":\"remeasure\",\"version\":\"x\",\"max_rounds\":1.5}", "whole number");
	refused("{\"kind\":\"bisect\",\"version\":\"x\",\"command\":\"c\"}", "needs good");
	refused("{\"kind\":\"bisect\",\"version\":\"x\",\"good\":\"y\"}", "one of them");
	refused("{\"kind\":\"bisect\",\"version\":\"x\",\"good\":\"y\",\"command\":\"c\",\"job\":"
		"\"time -- c\"}",
		"one of them");
	refused("{\"kind\":\"bisect\",\"version\":\"x\",\"good\":\"y\",\"command\":\"c\","
		"\"location\":\"l\"}",
		"location is for");
}

static char *joined(char **argv)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; argv[i]; i++)
		buf_addf(&b, "%s%s", i ? "|" : "", argv[i]);
	jobspec_argv_free(argv);
	return buf_detach(&b, NULL);
}

static void test_argv(void **state)
{
	struct jobspec js;
	struct buf b = BUF_INIT;
	char *s;

	(void)state;
	assert_int_equal(parse("{\"kind\":\"bisect\",\"version\":\"bad\",\"good\":\"good\","
			       "\"command\":\"./prog 'x y'\",\"runs\":4,\"seed\":7}",
			       &js),
			 0);
	s = joined(jobspec_argv(&js, "/bin/veles", "/p"));
	assert_string_equal(s, "/bin/veles|-C|/p|bisect|--good|good|--bad|bad|--runs|4|--seed|7|"
			       "--|/bin/sh|-c|./prog 'x y'");
	free(s);
	s = jobspec_command(&js);
	assert_string_equal(s, "veles bisect --good good --bad bad --runs 4 --seed 7 -- /bin/sh "
			       "-c './prog '\\''x y'\\'''");
	free(s);
	/* What the queue keeps reads back the same. */
	jobspec_json(&js, &b);
	jobspec_free(&js);
	assert_int_equal(jobspec_from_json(buf_str(&b), &js), 0);
	s = joined(jobspec_argv(&js, "veles", NULL));
	assert_string_equal(s, "veles|bisect|--good|good|--bad|bad|--runs|4|--seed|7|--|/bin/sh|-c|"
			       "./prog 'x y'");
	free(s);
	jobspec_free(&js);
	buf_release(&b);

	assert_int_equal(parse("{\"kind\":\"matrix\",\"version\":\"abc\"}", &js), 0);
	s = joined(jobspec_argv(&js, "veles", "/p"));
	assert_string_equal(s, "veles|-C|/p|run|matrix|-m|abc");
	free(s);
	jobspec_free(&js);
	assert_int_equal(
		parse("{\"kind\":\"remeasure\",\"version\":\"abc\",\"max_rounds\":5}", &js), 0);
	s = joined(jobspec_argv(&js, "veles", "/p"));
	assert_string_equal(s, "veles|-C|/p|check|head|abc|--remeasure|--max-rounds|5");
	free(s);
	jobspec_free(&js);
	assert_int_equal(jobspec_from_json("{\"kind\":\"matrix\"}", &js), ERR_PARSE);
	assert_int_equal(jobspec_from_json("{}", &js), ERR_PARSE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request),
		cmocka_unit_test(test_argv),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
