/* What the unit tests share: a temporary directory per test program,
 * argument lists, and isolation from the developer's git setup. */
#ifndef TESTS_UNIT_TESTUTIL_H
#define TESTS_UNIT_TESTUTIL_H

#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#include "util/common.h"
#include "util/fsutil.h"

/* Made by tmp_setup() and removed, with all inside it, by tmp_teardown():
 * use them as cmocka's group fixtures. */
static char tmp_base[] = "/tmp/veles-test-XXXXXX";

static inline int tmp_setup(void **state)
{
	UNUSED(state);
	return mkdtemp(tmp_base) ? 0 : -1;
}

static inline int tmp_teardown(void **state)
{
	UNUSED(state);
	return rm_rf(tmp_base);
}

/* A new, empty directory inside tmp_base; the caller frees the path. */
static inline char *tmp_fresh_dir(void)
{
	static unsigned serial;
	char *d = xasprintf("%s/d%u", tmp_base, serial++);

	if (mkdir_p(d) < 0)
		abort();
	return d;
}

/* Collects the NULL-terminated strings of @ap into @argv (room for @max
 * pointers, the last for NULL); returns how many. */
static inline int test_argv(char **argv, int max, va_list ap)
{
	int n = 0;

	while (n < max - 1 && (argv[n] = va_arg(ap, char *)))
		n++;
	argv[n] = NULL;
	return n;
}

/* Ctrl-C from outside, @ms milliseconds from now: a child process sends
 * this one SIGINT then. Returns the child's pid for waitpid, or -1. */
static inline pid_t test_sigint_in(unsigned ms)
{
	pid_t self = getpid(), helper = fork();

	if (helper == 0) {
		usleep(ms * 1000);
		kill(self, SIGINT);
		_exit(0);
	}
	return helper;
}

/* Keeps the developer's git configuration and identity out of a test:
 * libgit2 reads these once, at init, so call this before it. */
static inline void test_isolate_git(void)
{
	setenv("HOME", "/nonexistent", 1);
	setenv("XDG_CONFIG_HOME", "/nonexistent", 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
}

#endif
