#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

static size_t count_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	size_t n = 0;

	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static void test_atomic_write_replaces_whole_file(void **state)
{
	char *path = xasprintf("%s/a/b/file.json", tmp_base);
	char *sub = xasprintf("%s/a/b", tmp_base);
	struct buf b = BUF_INIT;

	UNUSED(state);
	assert_int_equal(mkdir_p(sub), 0);
	assert_int_equal(mkdir_p(sub), 0); /* idempotent */
	assert_int_equal(file_write_atomic(path, "first", 5), 0);
	assert_int_equal(file_write_atomic(path, "second!", 7), 0);
	assert_int_equal(file_read_all(path, &b), 0);
	assert_string_equal(buf_str(&b), "second!");
	/* No temporary files are left beside it. */
	assert_int_equal(count_entries(sub), 1);
	buf_release(&b);
	free(path);
	free(sub);
}

static void test_errors_name_the_path(void **state)
{
	struct buf b = BUF_INIT;
	char *path = xasprintf("%s/no/such/tmp_base/f", tmp_base);

	UNUSED(state);
	assert_int_equal(file_read_all("/no/such/file", &b), ERR_NOTFOUND);
	assert_non_null(strstr(err_msg(), "/no/such/file"));
	assert_int_equal(file_write_atomic(path, "x", 1), ERR_IO);
	assert_non_null(strstr(err_msg(), path));
	assert_false(path_exists(path));
	free(path);
}

/* The test binary's own path, and a file beside it found through it. */
static void test_self_exe_relative(void **state)
{
	char *exe = self_exe_path(), *same, *base;

	(void)state;
	assert_non_null(exe);
	assert_true(path_exists(exe));
	base = strrchr(exe, '/') + 1;
	same = self_exe_relative(base);
	assert_string_equal(same, exe);
	free(same);
	same = self_exe_relative("../unit/x");
	assert_int_equal(strncmp(same, exe, (size_t)(base - exe)), 0);
	assert_string_equal(same + (base - exe), "../unit/x");
	free(same);
	free(exe);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_atomic_write_replaces_whole_file),
		cmocka_unit_test(test_errors_name_the_path),
		cmocka_unit_test(test_self_exe_relative),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
