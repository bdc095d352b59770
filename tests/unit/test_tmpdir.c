/* Temporary directories with an owner: made in $TMPDIR, swept once the
 * process that made them is gone (SIGKILL included), never while it lives
 * and never when kept. */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "util/tmpdir.h"

static char *base;

static int setup(void **state)
{
	if (tmp_setup(state) < 0)
		return -1;
	base = xasprintf("%s/tmp", tmp_base);
	if (mkdir_p(base) < 0)
		return -1;
	setenv("TMPDIR", base, 1);
	return 0;
}

static int teardown(void **state)
{
	unsetenv("TMPDIR");
	free(base);
	return tmp_teardown(state);
}

/* A child that makes a directory, writes its path to @pipe_fd, waits to
 * be killed. */
static pid_t owner_child(int pipe_fd)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct tmpdir t;

		if (tmpdir_make("work", &t) < 0)
			_exit(1);
		if (write(pipe_fd, t.path, strlen(t.path) + 1) < 0)
			_exit(1);
		pause();
		_exit(0);
	}
	return pid;
}

static void test_made_in_tmpdir(void **state)
{
	struct tmpdir t;
	char *owner;

	UNUSED(state);
	assert_string_equal(tmpdir_base(), base);
	assert_int_equal(tmpdir_make("work", &t), 0);
	assert_true(strncmp(t.path, base, strlen(base)) == 0);
	assert_non_null(strstr(t.path, "/veles-work-"));
	assert_true(tmpdir_owned(t.path));
	assert_false(tmpdir_stranded(t.path));
	/* Ours and alive: a sweep leaves it. */
	assert_int_equal(tmpdir_sweep(NULL, NULL), 0);
	assert_true(path_is_dir(t.path));
	owner = xasprintf("%s/.owner", t.path);
	assert_true(path_exists(owner));
	free(owner);
	tmpdir_remove(&t);
	assert_null(t.path);
	tmpdir_remove(&t); /* again: nothing */
}

static void test_killed_owner_is_swept(void **state)
{
	int fds[2];
	char path[4096] = "";
	pid_t pid;
	int status;

	UNUSED(state);
	assert_int_equal(pipe(fds), 0);
	pid = owner_child(fds[1]);
	assert_true(read(fds[0], path, sizeof(path)) > 0);
	assert_true(tmpdir_owned(path));
	assert_int_equal(tmpdir_sweep("work", NULL), 0);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(tmpdir_stranded(path));
	/* Another WHAT, or the one excepted: left. */
	assert_int_equal(tmpdir_sweep("run", NULL), 0);
	assert_int_equal(tmpdir_sweep(NULL, (const char *const[]){"work", NULL}), 0);
	assert_true(path_is_dir(path));
	assert_int_equal(tmpdir_sweep(NULL, NULL), 1);
	assert_false(path_exists(path));
	close(fds[0]);
	close(fds[1]);
}

static void test_kept_is_never_swept(void **state)
{
	struct tmpdir t;
	char *path;

	UNUSED(state);
	assert_int_equal(tmpdir_make("trace", &t), 0);
	path = xstrdup(t.path);
	tmpdir_keep(&t);
	assert_null(t.path);
	tmpdir_remove(&t);
	assert_false(tmpdir_owned(path));
	assert_false(tmpdir_stranded(path));
	assert_int_equal(tmpdir_sweep(NULL, NULL), 0);
	assert_true(path_is_dir(path));
	rm_rf(path);
	free(path);
}

/* Killed between making the directory and its owner file: an empty
 * directory, swept once it is a few seconds old (never a new one, which
 * a live process may be about to own). */
static void test_empty_orphan(void **state)
{
	char *old = xasprintf("%s/veles-work-AAAAAA", base),
	     *fresh = xasprintf("%s/veles-work-BBBBBB", base);
	struct timespec then[2] = {{time(NULL) - 60, 0}, {time(NULL) - 60, 0}};

	UNUSED(state);
	assert_int_equal(mkdir_p(old), 0);
	assert_int_equal(mkdir_p(fresh), 0);
	assert_int_equal(utimensat(AT_FDCWD, old, then, 0), 0);
	assert_int_equal(tmpdir_sweep("work", NULL), 1);
	assert_false(path_exists(old));
	assert_true(path_is_dir(fresh));
	rm_rf(fresh);
	free(old);
	free(fresh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_made_in_tmpdir),
		cmocka_unit_test(test_killed_owner_is_swept),
		cmocka_unit_test(test_kept_is_never_swept),
		cmocka_unit_test(test_empty_orphan),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
