/* util/spawn: statuses, signals, errors, output handling, timeouts, rusage. */
#include <errno.h>
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
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "util/spawn.h"

/* The end of a variadic argument list: a null pointer of the right type. */
#define END ((char *)NULL)

static char *tmpdir;

static int setup(void **state)
{
	const char *base = getenv("VELES_TEST_TMP");
	char *tmpl;

	mkdir_p(base ? base : "/tmp");
	tmpl = xasprintf("%s/spawn.XXXXXX", base ? base : "/tmp");
	tmpdir = mkdtemp(tmpl);
	return tmpdir ? 0 : -1;
}

static int teardown(void **state)
{
	rm_rf(tmpdir);
	free(tmpdir);
	return 0;
}

static int run(struct spawn_result *r, const struct spawn_opts *o, ...)
{
	char *argv[16];
	va_list ap;

	va_start(ap, o);
	test_argv(argv, 16, ap);
	va_end(ap);
	memset(r, 0, sizeof(*r));
	return spawn_run(argv, o, r);
}

/* Runs with our stdout (and stderr) sent to @path, to see what was echoed. */
static int run_redirected(const char *path, struct spawn_result *r, const struct spawn_opts *o,
			  char **argv)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int out = dup(1), err = dup(2);
	int ret;

	assert_true(fd >= 0);
	fflush(stdout);
	dup2(fd, 1);
	dup2(fd, 2);
	close(fd);
	ret = spawn_run(argv, o, r);
	dup2(out, 1);
	dup2(err, 2);
	close(out);
	close(err);
	return ret;
}

static void test_exit_status(void **state)
{
	struct spawn_result r;

	assert_int_equal(run(&r, NULL, "/bin/true", END), 0);
	assert_true(WIFEXITED(r.status));
	assert_int_equal(WEXITSTATUS(r.status), 0);
	assert_int_equal(run(&r, NULL, "sh", "-c", "exit 3", END), 0);
	assert_true(WIFEXITED(r.status));
	assert_int_equal(WEXITSTATUS(r.status), 3);
	assert_false(r.timed_out);
	/* PATH lookup, as a shell would do it. */
	assert_int_equal(run(&r, NULL, "false", END), 0);
	assert_int_equal(WEXITSTATUS(r.status), 1);
}

static void test_signal(void **state)
{
	struct spawn_result r;
	char text[96];

	assert_int_equal(run(&r, NULL, "sh", "-c", "kill -KILL $$", END), 0);
	assert_true(WIFSIGNALED(r.status));
	assert_int_equal(WTERMSIG(r.status), SIGKILL);
	spawn_status_str(r.status, text, sizeof(text));
	assert_non_null(strstr(text, "signal 9"));
}

static void test_not_found(void **state)
{
	struct spawn_result r;

	assert_int_equal(run(&r, NULL, "/no/such/program", END), ERR_CHILD);
	assert_string_equal(err_msg(), "cannot run '/no/such/program': No such file or directory");
	assert_int_equal(run(&r, NULL, "veles-no-such-program-on-path", END), ERR_CHILD);
	assert_string_equal(
		err_msg(), "cannot run 'veles-no-such-program-on-path': No such file or directory");
}

static void test_not_executable(void **state)
{
	char *path = xasprintf("%s/plain.txt", tmpdir);
	struct spawn_result r;

	assert_int_equal(file_write_atomic(path, "hello\n", 6), 0);
	chmod(path, 0644);
	assert_int_equal(run(&r, NULL, path, END), ERR_CHILD);
	assert_non_null(strstr(err_msg(), "Permission denied"));
	assert_int_equal(run(&r, NULL, tmpdir, END), ERR_CHILD);
	free(path);
}

static void test_capture(void **state)
{
	char *log = xasprintf("%s/capture.log", tmpdir);
	char *echo = xasprintf("%s/echo.txt", tmpdir);
	char *argv[] = {"sh", "-c", "echo to-stdout; echo to-stderr >&2; exit 4", NULL};
	struct spawn_opts o = {.output = SPAWN_CAPTURE, .log_path = log};
	struct buf b = BUF_INIT;
	struct spawn_result r;

	assert_int_equal(run_redirected(echo, &r, &o, argv), 0);
	assert_int_equal(WEXITSTATUS(r.status), 4);
	assert_int_equal(file_read_all(log, &b), 0);
	assert_non_null(strstr(buf_str(&b), "to-stdout\n"));
	assert_non_null(strstr(buf_str(&b), "to-stderr\n"));
	buf_reset(&b);
	assert_int_equal(file_read_all(echo, &b), 0);
	assert_non_null(strstr(buf_str(&b), "to-stdout\n"));
	assert_non_null(strstr(buf_str(&b), "to-stderr\n"));
	/* The log is appended to, run after run. */
	assert_int_equal(run_redirected(echo, &r, &o, argv), 0);
	buf_reset(&b);
	assert_int_equal(file_read_all(log, &b), 0);
	assert_non_null(strstr(strstr(buf_str(&b), "to-stdout\n") + 1, "to-stdout\n"));
	buf_release(&b);
	free(log);
	free(echo);
}

static void test_suppress(void **state)
{
	char *echo = xasprintf("%s/suppressed.txt", tmpdir);
	char *argv[] = {"sh", "-c", "echo hidden; echo hidden-err >&2", NULL};
	struct spawn_opts o = {.output = SPAWN_SUPPRESS};
	struct buf b = BUF_INIT;
	struct spawn_result r;

	assert_int_equal(run_redirected(echo, &r, &o, argv), 0);
	assert_int_equal(WEXITSTATUS(r.status), 0);
	assert_int_equal(file_read_all(echo, &b), 0);
	assert_int_equal(b.len, 0);
	buf_release(&b);
	free(echo);
}

/* What a sink was handed, stream by stream. */
static void sink_into(void *arg, int stream, const char *data, size_t len)
{
	struct buf *b = arg;

	buf_add(&b[stream == SPAWN_STDERR], data, len);
}

static void test_sink(void **state)
{
	char *echo = xasprintf("%s/sink.txt", tmpdir);
	char *argv[] = {"sh", "-c", "echo out1; echo err1 >&2; printf out2", NULL};
	struct buf got[2] = {BUF_INIT, BUF_INIT}, b = BUF_INIT;
	struct spawn_opts o = {.output = SPAWN_SUPPRESS,
			       .sink = sink_into,
			       .sink_arg = got,
			       .sink_streams = SPAWN_STDOUT};
	struct spawn_result r;

	/* Suppressed: the sink reads stdout, nothing reaches our streams. */
	assert_int_equal(run_redirected(echo, &r, &o, argv), 0);
	assert_string_equal(buf_str(&got[0]), "out1\nout2");
	assert_int_equal(got[1].len, 0);
	assert_int_equal(file_read_all(echo, &b), 0);
	assert_int_equal(b.len, 0);
	/* Inherited: both streams are echoed, the sink reads both. */
	buf_reset(&got[0]);
	o.output = SPAWN_INHERIT;
	o.sink_streams = SPAWN_STDOUT | SPAWN_STDERR;
	assert_int_equal(run_redirected(echo, &r, &o, argv), 0);
	assert_string_equal(buf_str(&got[0]), "out1\nout2");
	assert_string_equal(buf_str(&got[1]), "err1\n");
	buf_reset(&b);
	assert_int_equal(file_read_all(echo, &b), 0);
	assert_non_null(strstr(buf_str(&b), "out1\n"));
	assert_non_null(strstr(buf_str(&b), "err1\n"));
	buf_release(&got[0]);
	buf_release(&got[1]);
	buf_release(&b);
	free(echo);
}

static void test_timeout(void **state)
{
	struct spawn_opts o = {.timeout = 0.2};
	struct spawn_result r;

	assert_int_equal(run(&r, &o, "sleep", "10", END), 0);
	assert_true(r.timed_out);
	assert_true(WIFSIGNALED(r.status));
	assert_int_equal(WTERMSIG(r.status), SIGTERM);
	assert_true(r.real < 8.0); /* generous: only "it did not run its 10 s" */
	/* A command that finishes in time is not a timeout. */
	assert_int_equal(run(&r, &o, "/bin/true", END), 0);
	assert_false(r.timed_out);
	assert_true(WIFEXITED(r.status));
}

static void test_timeout_capture(void **state)
{
	char *log = xasprintf("%s/timeout.log", tmpdir);
	struct spawn_opts o = {.output = SPAWN_CAPTURE, .log_path = log, .timeout = 0.2};
	struct spawn_result r;

	assert_int_equal(run(&r, &o, "sleep", "10", END), 0);
	assert_true(r.timed_out);
	assert_true(WIFSIGNALED(r.status));
	assert_true(r.real < 8.0);
	free(log);
}

/* A command that ignores SIGTERM gets SIGKILL after the grace period. */
static void test_timeout_kill(void **state)
{
	struct spawn_opts o = {.timeout = 0.2, .grace = 0.2};
	struct spawn_result r;

	assert_int_equal(run(&r, &o, "sh", "-c", "trap '' TERM; exec sleep 5", END), 0);
	assert_true(r.timed_out);
	assert_true(WIFSIGNALED(r.status));
	assert_int_equal(WTERMSIG(r.status), SIGKILL);
}

static void test_rusage(void **state)
{
	struct spawn_result r;

	assert_int_equal(
		run(&r, NULL, "sh", "-c", "i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done", END),
		0);
	assert_true(r.real > 0);
	assert_true(r.user >= 0);
	assert_true(r.sys >= 0);
	assert_true(r.maxrss_kib > 0);
	assert_true(r.start > 0);
}

/* The spawner runs again and again with the same prepared state. */
static void test_spawner_reuse(void **state)
{
	char *argv[] = {"true", NULL};
	struct spawn_opts o = {.output = SPAWN_SUPPRESS};
	struct spawner s;
	struct spawn_result r;

	assert_int_equal(spawner_init(&s, argv, &o), 0);
	for (int i = 0; i < 50; i++) {
		assert_int_equal(spawner_run(&s, &r), 0);
		assert_true(WIFEXITED(r.status));
		assert_int_equal(WEXITSTATUS(r.status), 0);
	}
	spawner_release(&s);
}

/* SIGINT while a command runs reaches the command and is remembered. */
static void test_interrupt(void **state)
{
	pid_t helper;
	struct spawn_result r;

	spawn_signals_install();
	helper = test_sigint_in(300);
	assert_true(helper >= 0);
	assert_int_equal(run(&r, NULL, "sleep", "10", END), 0);
	waitpid(helper, NULL, 0);
	assert_int_equal(spawn_interrupted(), SIGINT);
	assert_true(WIFSIGNALED(r.status));
	assert_int_equal(WTERMSIG(r.status), SIGINT);
	spawn_signals_restore();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_status),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_not_found),
		cmocka_unit_test(test_not_executable),
		cmocka_unit_test(test_capture),
		cmocka_unit_test(test_suppress),
		cmocka_unit_test(test_sink),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_timeout_capture),
		cmocka_unit_test(test_timeout_kill),
		cmocka_unit_test(test_rusage),
		cmocka_unit_test(test_spawner_reuse),
		cmocka_unit_test(test_interrupt),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
