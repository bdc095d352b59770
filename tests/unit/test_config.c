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

struct each {
	const char **seen;
	size_t *n;
};

static void each_key(const char *key, const char *value, void *arg)
{
	struct each *e = arg;

	UNUSED(value);
	if (*e->n < 3)
		e->seen[*e->n] = key;
	(*e->n)++;
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

/* Lookups by key: a repeated key keeps its later value at its first place,
 * config_has sees every prefix at a dot, and a long list reads whole (the
 * lookups are hashed: issue 13 measured 23 s for 125k items before). */
static void test_lookups(void **state)
{
	struct config *c;
	struct buf b = BUF_INIT;
	const char *seen[3] = {0};
	size_t n = 0;

	UNUSED(state);
	write_text("a: 1\nb:\n  c: {d: [x, {e: y}]}\na: 2\n");
	assert_int_equal(config_load(path, &c), 0);
	assert_string_equal(config_get(c, "a"), "2");
	assert_string_equal(config_get(c, "b.c.d.0"), "x");
	assert_string_equal(config_get(c, "b.c.d.1.e"), "y");
	assert_null(config_get(c, "b.c"));
	assert_true(config_has(c, "b"));
	assert_true(config_has(c, "b.c.d"));
	assert_true(config_has(c, "b.c.d.1"));
	assert_false(config_has(c, "b.c.d.2"));
	assert_false(config_has(c, "b.c.d.1.e.f"));
	assert_false(config_has(c, "b.c.d."));
	assert_false(config_has(NULL, "a"));
	assert_int_equal(config_error_at(c, "b.c.d.1.e", "bad"), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "config.yml:3:15: bad"));
	assert_int_equal(config_error_at(c, "a", "bad"), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "config.yml:1:1: bad"));
	config_each(c, each_key, &(struct each){seen, &n});
	assert_int_equal(n, 3);
	assert_string_equal(seen[0], "a");
	config_free(c);

	buf_adds(&b, "workloads:\n");
	for (int i = 0; i < 200000; i++)
		buf_addf(&b, "  - w%d\n", i);
	write_text(buf_str(&b));
	buf_release(&b);
	assert_int_equal(config_load(path, &c), 0);
	for (int i = 0; i < 200000; i += 997) {
		char key[32], want[32];

		snprintf(key, sizeof(key), "workloads.%d", i);
		snprintf(want, sizeof(want), "w%d", i);
		assert_string_equal(config_get(c, key), want);
	}
	assert_string_equal(config_get(c, "workloads.199999"), "w199999");
	assert_null(config_get(c, "workloads.200000"));
	assert_true(config_has(c, "workloads.199999"));
	assert_false(config_has(c, "workloads.200000"));
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
		cmocka_unit_test(test_lookups),
		cmocka_unit_test(test_set_keeps_comments),
		cmocka_unit_test(test_set_refuses_sections_and_bad_keys),
		cmocka_unit_test(test_syntax_error_has_position),
		cmocka_unit_test(test_unknown_key_has_position),
		cmocka_unit_test(test_missing_file_is_empty),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
