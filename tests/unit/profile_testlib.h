/*
 * What the profile reader's unit tests share: loading from the test data,
 * from a string or through a pipe, and reading a cell back.
 */
#ifndef TESTS_PROFILE_TESTLIB_H
#define TESTS_PROFILE_TESTLIB_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "profile/profile.h"
#include "profile/profile_priv.h"
#include "util/buf.h"
#include "util/common.h"

static inline char *data_path(const char *name)
{
	const char *src = getenv("VELES_SRCDIR");

	return xasprintf("%s/tests/data/profiles/%s", src ? src : ".", name);
}

static inline struct profile *load_data(const char *name)
{
	char *path = data_path(name);
	struct profile *p = NULL;
	int ret = profile_load(path, &p);

	if (ret < 0)
		fail_msg("%s", err_msg());
	free(path);
	return p;
}

static inline struct profile *load_str(const char *json)
{
	struct profile *p = NULL;

	if (profile_load_mem(json, strlen(json), "t.perf", &p) < 0)
		fail_msg("%s", err_msg());
	return p;
}

static inline void expect_error(const char *json, const char *msg)
{
	struct profile *p = (void *)1;

	assert_true(profile_load_mem(json, strlen(json), "t.perf", &p) < 0);
	assert_null(p);
	assert_string_equal(err_msg(), msg);
}

static inline double res_num(const struct profile *p, size_t row, const char *col)
{
	size_t at;
	const struct column *c = profile_attr(p, row, col, NULL, &at);

	return c ? col_num(c, at) : NAN;
}

static inline const char *attr_text(const struct profile *p, size_t row, const char *col)
{
	size_t at;
	const struct column *c = profile_attr(p, row, col, NULL, &at);

	return c ? col_text(p, c, at) : NULL;
}

/* Loads @j from a pipe, which cannot be mapped: read in 64 KiB chunks. */
static inline int load_piped(const struct buf *j, struct profile **p)
{
	int fds[2], ret, status;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		const char *d = j->data;
		size_t left = j->len;
		ssize_t n;

		close(fds[0]);
		while (left && (n = write(fds[1], d, left)) > 0) {
			d += n;
			left -= (size_t)n;
		}
		_exit(left ? 1 : 0);
	}
	close(fds[1]);
	ret = profile_load_fd(fds[0], "pipe", p);
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return ret;
}

#endif
