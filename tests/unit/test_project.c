/*
 * project/ and the analysis pieces libveles added: finding a project,
 * settings nearest first, degradation.strategies, resource conditions,
 * folded stacks and a profile's parts as JSON.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/strategy.h"
#include "analyze/where.h"
#include "profile/profile.h"
#include "project/project.h"
#include "project/settings.h"
#include "testutil.h"
#include "util/buf.h"
#include "view/flamegraph.h"

static struct profile *load_data(const char *name)
{
	const char *src = getenv("VELES_SRCDIR");
	char *path = xasprintf("%s/tests/data/profiles/%s", src ? src : ".", name);
	struct profile *p = NULL;

	assert_int_equal(profile_load(path, &p), 0);
	free(path);
	return p;
}

static void write_file(const char *path, const char *text)
{
	assert_int_equal(file_write_atomic(path, text, strlen(text)), 0);
}

/* A project root with .veles/ and a nested directory; the root's path. */
static char *new_project(void)
{
	char *root = tmp_fresh_dir(), *sub = xasprintf("%s/.veles/jobs", root);

	assert_int_equal(mkdir_p(sub), 0);
	free(sub);
	sub = xasprintf("%s/src/deep", root);
	assert_int_equal(mkdir_p(sub), 0);
	free(sub);
	return root;
}

static void test_find_from_below(void **state)
{
	char *root = new_project(), *deep = xasprintf("%s/src/deep", root), *file;
	struct project p;

	UNUSED(state);
	assert_int_equal(project_find(deep, &p), 0);
	assert_string_equal(p.root, root);
	file = xasprintf("%s/.veles/jobs", root);
	assert_string_equal(p.jobs_dir, file);
	assert_null(p.store);
	project_release(&p);
	assert_null(p.root);
	project_release(&p); /* twice is fine */
	/* A file is no place to start from. */
	free(file);
	file = xasprintf("%s/src/x.c", root);
	write_file(file, "int x;\n");
	assert_int_equal(project_find(file, &p), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "not a directory"));
	free(file);
	free(deep);
	free(root);
}

static void test_find_none(void **state)
{
	char *dir = tmp_fresh_dir(), *missing = xasprintf("%s/missing", dir);
	struct project p;

	UNUSED(state);
	/* tmp_base is under /tmp, which has no .veles/ above it. */
	assert_int_equal(project_find(dir, &p), ERR_NOTFOUND);
	assert_non_null(strstr(err_msg(), "not a Veles project"));
	assert_int_equal(project_find(missing, &p), ERR_NOTFOUND);
	assert_non_null(strstr(err_msg(), "cannot open project"));
	free(missing);
	free(dir);
}

static void test_settings_nearest_first(void **state)
{
	char *root = new_project(), *home = tmp_fresh_dir(), *cfg, *user;
	struct project p;
	char **list;
	size_t n;

	UNUSED(state);
	setenv("XDG_CONFIG_HOME", home, 1);
	user = xasprintf("%s/veles", home);
	assert_int_equal(mkdir_p(user), 0);
	free(user);
	user = xasprintf("%s/veles/config.yml", home);
	write_file(user, "add:\n  keep_profile: true\nexecute:\n  pre_run: [make, make check]\n");
	cfg = xasprintf("%s/.veles/config.yml", root);
	write_file(cfg, "add:\n  keep_profile: false\n");
	assert_int_equal(project_find(root, &p), 0);
	assert_false(project_setting_bool(&p, "add.keep_profile", true));
	assert_true(project_setting_bool(NULL, "add.keep_profile", false));
	assert_true(project_setting_bool(&p, "collect.warn_dirty", true));
	assert_null(project_setting(&p, "collect.warn_dirty"));
	list = project_setting_list(&p, "execute.pre_run", &n);
	assert_int_equal(n, 2);
	assert_string_equal(list[0], "make");
	assert_string_equal(list[1], "make check");
	assert_null(list[2]);
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
	assert_int_equal(project_settings_check(&p), 0);
	write_file(cfg, "add:\n  keep_profiles: false\n");
	assert_int_equal(project_settings_check(&p), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "unknown key 'add.keep_profiles'"));
	project_release(&p);
	unsetenv("XDG_CONFIG_HOME");
	free(cfg);
	free(user);
	free(home);
	free(root);
}

static void test_strategies(void **state)
{
	char *root = new_project(), *cfg = xasprintf("%s/.veles/config.yml", root);
	struct profile *t = load_data("time.perf"), *m = load_data("trace-models.perf");
	struct check_strategies s;
	const char *methods[CHECK_MAX_METHODS];
	struct project p;
	size_t n;

	UNUSED(state);
	write_file(cfg, "degradation:\n  apply: all\n  strategies:\n"
			"    - method: aat\n      cmd: ./list_*\n"
			"    - method: loc\n      type: time\n"
			"    - method: fast\n      collector: memory\n");
	assert_int_equal(project_find(root, &p), 0);
	assert_int_equal(check_strategies_load(&p, &s), 0);
	assert_int_equal(s.n, 3);
	assert_true(s.all);
	check_methods_for(&s, t, methods, &n);
	assert_int_equal(n, 2);
	assert_string_equal(methods[0], "aat");
	assert_string_equal(methods[1], "loc");
	/* No rule matches: int for fitted models, stat without strategies. */
	check_methods_for(&s, m, methods, &n);
	assert_int_equal(n, 1);
	assert_string_equal(methods[0], "int");
	check_methods_for(NULL, t, methods, &n);
	assert_string_equal(methods[0], "stat");
	check_strategies_free(&s);
	write_file(cfg, "degradation:\n  strategies:\n    - method: guess\n");
	assert_int_equal(check_strategies_load(&p, &s), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "unknown method 'guess'"));
	write_file(cfg, "degradation:\n  apply: some\n");
	assert_int_equal(check_strategies_load(&p, &s), ERR_INVALID);
	project_release(&p);
	profile_free(t);
	profile_free(m);
	free(cfg);
	free(root);
}

static void test_where(void **state)
{
	struct profile *p = load_data("trace.perf");
	struct where w;
	struct buf scratch = BUF_INIT;
	size_t held = 0;

	UNUSED(state);
	assert_int_equal(where_parse("amount>=1", "where", &w), 0);
	for (size_t r = 0; r < profile_nres(p); r++)
		held += where_holds(&w, p, r, &scratch);
	assert_int_equal(held, 5); /* 1, 1, 1, 1, 6 of 1 0 1 1 1 6 0 */
	where_release(&w);
	assert_int_equal(where_parse("uid~^SLList_(init|destroy)", "where", &w), 0);
	held = 0;
	for (size_t r = 0; r < profile_nres(p); r++)
		held += where_holds(&w, p, r, &scratch);
	assert_int_equal(held, 2);
	where_release(&w);
	/* Missing attributes fail; bad conditions say why in one line. */
	assert_int_equal(where_parse("nosuch=1", "where", &w), 0);
	assert_false(where_holds(&w, p, 0, &scratch));
	where_release(&w);
	assert_int_equal(where_parse("amount", "postprocess filter: --where", &w), ERR_INVALID);
	assert_string_equal(err_msg(), "postprocess filter: --where 'amount' is not KEY OP VALUE "
				       "(OP one of = != < <= > >= ~ !~)");
	where_release(&w);
	assert_int_equal(where_parse("uid~(", "where", &w), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "where 'uid~(': "));
	where_release(&w);
	buf_release(&scratch);
	profile_free(p);
}

static void test_folded(void **state)
{
	struct profile *p = load_data("memory.perf");
	struct flame_opts o = {0};
	struct buf b = BUF_INIT;

	UNUSED(state);
	assert_int_equal(flamegraph_folded(p, &o, &b), 0);
	assert_string_equal(buf_str(&b), "_start;__libc_start_main;main;malloc 4\n");
	/* Counting: the free (amount 0) is not an allocation. */
	buf_reset(&b);
	o.count = true;
	assert_int_equal(flamegraph_folded(p, &o, &b), 0);
	assert_string_equal(buf_str(&b), "_start;__libc_start_main;main;malloc 1\n");
	profile_free(p);
	p = load_data("time.perf");
	assert_int_equal(flamegraph_folded(p, &o, &b), ERR_INVALID);
	buf_release(&b);
	profile_free(p);
}

static void test_write_part(void **state)
{
	struct profile *p = load_data("time.perf");
	struct buf b = BUF_INIT;

	UNUSED(state);
	assert_int_equal(profile_write_part(p, "header", &b), 0);
	assert_string_equal(buf_str(&b),
			    "{\"type\":\"time\",\"cmd\":\"./list_search\",\"params\":\"\","
			    "\"workload\":\"100000\",\"units\":{\"time\":\"s\"}}");
	buf_reset(&b);
	assert_int_equal(profile_write_part(p, "collector_info", &b), 0);
	assert_string_equal(buf_str(&b),
			    "{\"name\":\"time\",\"params\":{\"repeat\":2,\"warmup\":3}}");
	buf_reset(&b);
	assert_int_equal(profile_write_part(p, "models", &b), 0);
	assert_string_equal(buf_str(&b), "[]");
	buf_reset(&b);
	assert_int_equal(profile_write_part(p, "meta", &b), 0);
	assert_null(strstr(buf_str(&b), "resources"));
	assert_non_null(strstr(buf_str(&b), "\"origin\":\"8de6cd99"));
	assert_int_equal(profile_write_part(p, "resources", &b), ERR_INVALID);
	buf_release(&b);
	profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_from_below),
		cmocka_unit_test(test_find_none),
		cmocka_unit_test(test_settings_nearest_first),
		cmocka_unit_test(test_strategies),
		cmocka_unit_test(test_where),
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_write_part),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
