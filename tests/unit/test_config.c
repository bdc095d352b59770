#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/config.h"
#include "testutil.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

static char *path;

static int setup(void **state)
{
	if (tmp_setup(state) < 0)
		return -1;
	path = xasprintf("%s/config.yml", tmp_base);
	return 0;
}

static int teardown(void **state)
{
	free(path);
	return tmp_teardown(state);
}

static void write_text(const char *text)
{
	assert_int_equal(file_write_atomic(path, text, strlen(text)), 0);
}

static void test_template_parses(void **state)
{
	struct config *c;

	UNUSED(state);
	write_text(config_template);
	assert_int_equal(config_load(path, &c), 0);
	assert_string_equal(config_get(c, "collect.warn_dirty"), "true");
	assert_true(config_bool(c, "collect.warn_dirty", false));
	assert_false(config_bool(c, "add.keep_profile", true));
	assert_null(config_get(c, "collect"));
	config_free(c);
}

static void test_nested_and_sequences(void **state)
{
	struct config *c;

	UNUSED(state);
	write_text("cmds: [./a, ./b]\n"
		   "collectors:\n"
		   "  - name: time\n"
		   "    params: {repeat: 10}\n"
		   "  - name: memory\n");
	assert_int_equal(config_load(path, &c), 0);
	assert_string_equal(config_get(c, "cmds.0"), "./a");
	assert_string_equal(config_get(c, "cmds.1"), "./b");
	assert_string_equal(config_get(c, "collectors.0.name"), "time");
	assert_string_equal(config_get(c, "collectors.0.params.repeat"), "10");
	assert_string_equal(config_get(c, "collectors.1.name"), "memory");
	config_free(c);
}

static void test_set_keeps_comments(void **state)
{
	struct config *c;
	struct buf text = BUF_INIT;

	UNUSED(state);
	write_text(config_template);
	assert_int_equal(config_set_file(path, "add.keep_profile", "true"), 0);
	assert_int_equal(config_set_file(path, "collect.repeat", "5"), 0);
	assert_int_equal(config_set_file(path, "new.deep.key", "a: b"), 0);
	assert_int_equal(file_read_all(path, &text), 0);
	assert_non_null(strstr(buf_str(&text), "# Keep a pending profile"));
	assert_non_null(strstr(buf_str(&text), "  keep_profile: true\n"));
	assert_int_equal(config_load(path, &c), 0);
	assert_string_equal(config_get(c, "add.keep_profile"), "true");
	assert_string_equal(config_get(c, "collect.repeat"), "5");
	assert_string_equal(config_get(c, "collect.warn_dirty"), "true");
	assert_string_equal(config_get(c, "new.deep.key"), "a: b");
	config_free(c);
	buf_release(&text);
}

static void test_set_refuses_sections_and_bad_keys(void **state)
{
	UNUSED(state);
	write_text(config_template);
	assert_int_equal(config_set_file(path, "collect", "x"), ERR_INVALID);
	assert_int_equal(config_set_file(path, "collect.warn_dirty.sub", "x"), ERR_INVALID);
	assert_int_equal(config_set_file(path, "a..b", "x"), ERR_INVALID);
	assert_int_equal(config_set_file(path, "", "x"), ERR_INVALID);
}

static void test_syntax_error_has_position(void **state)
{
	struct config *c = NULL;

	UNUSED(state);
	write_text("a:\n  b: [1, 2\n");
	assert_int_equal(config_load(path, &c), ERR_PARSE);
	assert_null(c);
	assert_non_null(strstr(err_msg(), "config.yml:"));
	assert_non_null(strstr(err_msg(), ":3:"));
}

static void test_unknown_key_has_position(void **state)
{
	struct config *c;

	UNUSED(state);
	write_text("cmds: [./a]\n"
		   "collectors:\n"
		   "  - name: time\n"
		   "    params: {repeat: 3, anything: [1, 2]}\n"
		   "    parms: {x: 1}\n");
	assert_int_equal(config_load(path, &c), 0);
	assert_int_equal(config_validate(c), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "config.yml:5:5: unknown key 'collectors.0.parms'"));
	assert_true(config_has(c, "collectors.0.params"));
	assert_false(config_has(c, "collectors.0.param"));
	assert_int_equal(config_error_at(c, "collectors.0.name", "bad"), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "config.yml:3:5: bad"));
	config_free(c);
	assert_true(config_key_known("generators.workload.0.min_range"));
	assert_true(config_key_known("collect"));
	assert_false(config_key_known("collectors.x.name"));
	assert_false(config_key_known("cmds.0.x"));
	write_text(config_template);
	assert_int_equal(config_load(path, &c), 0);
	assert_int_equal(config_validate(c), 0);
	config_free(c);
}

static void test_missing_file_is_empty(void **state)
{
	struct config *c;
	char *none = xasprintf("%s/none.yml", tmp_base);

	UNUSED(state);
	assert_int_equal(config_load(none, &c), 0);
	assert_null(config_get(c, "x"));
	assert_true(config_bool(c, "x", true));
	config_free(c);
	assert_int_equal(config_set_file(none, "x.y", "1"), 0);
	assert_int_equal(config_load(none, &c), 0);
	assert_string_equal(config_get(c, "x.y"), "1");
	config_free(c);
	free(none);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_template_parses),
		cmocka_unit_test(test_nested_and_sequences),
		cmocka_unit_test(test_set_keeps_comments),
		cmocka_unit_test(test_set_refuses_sections_and_bad_keys),
		cmocka_unit_test(test_syntax_error_has_position),
		cmocka_unit_test(test_unknown_key_has_position),
		cmocka_unit_test(test_missing_file_is_empty),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
