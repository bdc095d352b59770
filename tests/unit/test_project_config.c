/* project_config: which files a project reads, nearest first, and the
 * rules of the tracked one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config/config.h"
#include "project/project_config.h"
#include "testutil.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"

/* A project directory with .veles/, and a user config dir, both fresh. */
static char *root, *user_dir;

static void fresh(void)
{
	free(root);
	free(user_dir);
	root = tmp_fresh_dir();
	user_dir = tmp_fresh_dir();
	setenv("XDG_CONFIG_HOME", user_dir, 1);
}

static void put(const char *rel, const char *text)
{
	char *p = rel[0] == '~' ? xasprintf("%s/veles/config.yml", user_dir)
				: xasprintf("%s/%s", root, rel);
	char *dir = xstrdup(p);

	*strrchr(dir, '/') = '\0';
	assert_int_equal(mkdir_p(dir), 0);
	assert_int_equal(file_write_atomic(p, text, strlen(text)), 0);
	free(dir);
	free(p);
}

static const char *rel(const char *path)
{
	return strncmp(path, root, strlen(root)) == 0 ? path + strlen(root) + 1 : path;
}

static void test_order_without_tracked(void **state)
{
	struct project_config_files f;

	UNUSED(state);
	fresh();
	project_config_files(root, &f);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.role[0], PCONF_LOCAL);
	assert_string_equal(rel(f.path[0]), ".veles/config.yml");
	assert_int_equal(f.role[1], PCONF_USER);
	assert_null(project_config_path(&f, PCONF_TRACKED));
	/* Where `config --tracked set` would make it. */
	assert_string_equal(rel(f.tracked), "veles.yml");
	project_config_files_release(&f);

	project_config_files(NULL, &f);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.role[0], PCONF_USER);
	assert_null(f.tracked);
	project_config_files_release(&f);
}

static void test_tracked_between_local_and_user(void **state)
{
	struct project_config_files f;
	struct config *c[PROJECT_CONFIG_MAX];

	UNUSED(state);
	fresh();
	put("veles.yml", "cmds: [./t]\nargs: [t]\n");
	put(".veles/config.yml", "args: [l]\n");
	put("~", "args: [u]\nworkloads: [u]\ncmds: [./u]\n");
	project_config_files(root, &f);
	assert_int_equal(f.n, 3);
	assert_int_equal(f.role[1], PCONF_TRACKED);
	assert_string_equal(rel(f.path[1]), "veles.yml");
	assert_int_equal(project_config_load(&f, c), 0);
	assert_string_equal(config_get(c[0], "args.0"), "l");
	assert_string_equal(config_get(c[1], "cmds.0"), "./t");
	assert_string_equal(config_get(c[2], "workloads.0"), "u");
	project_config_unload(c);
	project_config_files_release(&f);
}

static void test_matrix_file(void **state)
{
	struct project_config_files f;
	struct config *c[PROJECT_CONFIG_MAX];

	UNUSED(state);
	fresh();
	put("veles.yml", "cmds: [./default]\n");
	put("ci/perf.yml", "cmds: [./ci]\n");
	/* The user's setting, overridden by the project's. */
	put("~", "matrix:\n  file: ci/none.yml\n");
	put(".veles/config.yml", "matrix:\n  file: ci/perf.yml\n");
	project_config_files(root, &f);
	assert_string_equal(rel(project_config_path(&f, PCONF_TRACKED)), "ci/perf.yml");
	assert_string_equal(rel(f.matrix_file_from), ".veles/config.yml");
	assert_int_equal(project_config_load(&f, c), 0);
	assert_string_equal(config_get(c[1], "cmds.0"), "./ci");
	project_config_unload(c);
	project_config_files_release(&f);

	/* The user's alone: named, not there, an error naming both files. */
	put(".veles/config.yml", "add:\n  keep_profile: true\n");
	project_config_files(root, &f);
	assert_int_equal(project_config_load(&f, c), ERR_NOTFOUND);
	assert_non_null(strstr(err_msg(), "names "));
	assert_non_null(strstr(err_msg(), "ci/none.yml, which does not exist"));
	for (size_t i = 0; i < PROJECT_CONFIG_MAX; i++)
		assert_null(c[i]);
	project_config_files_release(&f);

	/* Empty: no tracked file, not even veles.yml. */
	put(".veles/config.yml", "matrix:\n  file: ''\n");
	project_config_files(root, &f);
	assert_int_equal(f.n, 2);
	assert_null(project_config_path(&f, PCONF_TRACKED));
	assert_null(f.tracked);
	project_config_files_release(&f);
}

static void test_tracked_cannot_redirect(void **state)
{
	struct project_config_files f;
	struct config *c[PROJECT_CONFIG_MAX];

	UNUSED(state);
	fresh();
	put("veles.yml", "cmds: [./t]\nmatrix:\n  file: /etc/elsewhere.yml\n");
	project_config_files(root, &f);
	/* Not followed: the tracked file is still veles.yml... */
	assert_string_equal(rel(project_config_path(&f, PCONF_TRACKED)), "veles.yml");
	/* ...and loading it says why it is refused, at the key. */
	assert_int_equal(project_config_load(&f, c), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "veles.yml:3:3: matrix.file is a local setting"));
	project_config_files_release(&f);
}

static void test_unknown_key_in_tracked(void **state)
{
	struct project_config_files f;
	struct config *c[PROJECT_CONFIG_MAX];

	UNUSED(state);
	fresh();
	put("veles.yml", "cmds: [./t]\ncolectors: []\n");
	project_config_files(root, &f);
	assert_int_equal(project_config_load(&f, c), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "veles.yml:2:1: unknown key 'colectors'"));
	project_config_files_release(&f);
}

static int teardown(void **state)
{
	free(root);
	free(user_dir);
	return tmp_teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_without_tracked),
		cmocka_unit_test(test_tracked_between_local_and_user),
		cmocka_unit_test(test_matrix_file),
		cmocka_unit_test(test_tracked_cannot_redirect),
		cmocka_unit_test(test_unknown_key_in_tracked),
	};

	return cmocka_run_group_tests(tests, tmp_setup, teardown);
}
