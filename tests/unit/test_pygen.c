/* perf/pygen.c: names from a recording never reach the Python code raw. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "perf/pygen.h"
#include "util/common.h"

static void test_identifiers(void **state)
{
	UNUSED(state);
	assert_true(pygen_is_identifier("id"));
	assert_true(pygen_is_identifier("_x9"));
	assert_true(pygen_is_identifier("raw_syscalls__sys_enter"));
	assert_false(pygen_is_identifier(""));
	assert_false(pygen_is_identifier("9x"));
	assert_false(pygen_is_identifier("from"));
	assert_false(pygen_is_identifier("None"));
	assert_false(pygen_is_identifier("a b"));
	assert_false(pygen_is_identifier("a\rb"));
	assert_false(pygen_is_identifier("x=1"));
	assert_false(pygen_is_identifier("\xc3\xa9t\xc3\xa9"));
}

static void test_literals(void **state)
{
	struct buf b = BUF_INIT;

	UNUSED(state);
	pygen_add_str(&b, "a\"b\\c\r\n\t%\xe2\x80\xae", false);
	assert_string_equal(buf_str(&b), "\"a\\\"b\\\\c\\x0d\\x0a\\x09%\\xe2\\x80\\xae\"");
	buf_reset(&b);
	pygen_add_str(&b, "100%d", true);
	assert_string_equal(buf_str(&b), "\"100%%d\"");
	buf_release(&b);
}

static void test_script(void **state)
{
	struct tp_format f[2] = {
		{"evil", "name: a(*a): pass\r__import__(\"os\")\rdef b\nID: 1\nformat:\n"
			 "\tfield:unsigned short common_type;\toffset:0;\n\n"
			 "\tfield:long from;\toffset:8;\n\tfield:long ok;\toffset:16;\n"
			 "\tfield:long ok;\toffset:24;\n\tfield:long context;\toffset:32;\n"},
		{"sched", "name: sched_switch\nID: 2\nformat:\n\tfield:int next_pid;\toffset:8;\n"},
	};
	struct buf b = BUF_INIT;
	const char *s;

	UNUSED(state);
	pygen_script(f, 2, &b);
	s = buf_str(&b);
	assert_null(strchr(s, '\r'));
	assert_null(strstr(s, "def evil__"));
	assert_non_null(strstr(s, "def tracepoint_1(event_name"));
	assert_non_null(strstr(s, "globals()[\"evil__a(*a): pass\\x0d__import__(\\\"os\\\")"
				  "\\x0ddef b\"] = tracepoint_1\n"));
	/* A keyword, a duplicate and a common argument's name are renamed. */
	assert_non_null(strstr(s, "common_comm,\n        field_1, ok, field_3, field_4):"));
	assert_non_null(strstr(s, "\"from\" \"=%s\" % (field_1,)"));
	assert_non_null(strstr(s, "\"context\" \"=%s\" % (field_4,)"));
	assert_non_null(strstr(s, "def sched__sched_switch(event_name"));
	assert_non_null(strstr(s, "common_comm,\n        next_pid):"));
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identifiers),
		cmocka_unit_test(test_literals),
		cmocka_unit_test(test_script),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
