/*
 * Temporary worktrees (run/worktree.c) of a veles killed with SIGKILL:
 * the first checkout any later process makes (run, check, bisect) removes
 * them, git's record, directory and branch; a live process's worktree is
 * never touched. Each veles here is a child process, as each command is
 * one: a process sweeps once.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "run/run.h"
#include "testutil.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "vcs/vcs.h"

static char *repo, *base;
static char head[41];

/* Runs the shell command @cmd in the repository; its first line of
 * output into @line (when not NULL), and how many lines it printed. */
static int sh_lines(const char *cmd, char *line, size_t cap)
{
	char *full = xasprintf("cd '%s' && (%s) 2>&1", repo, cmd);
	FILE *p = popen(full, "r");
	char buf[4096];
	int n = 0;

	assert_non_null(p);
	while (fgets(buf, sizeof(buf), p)) {
		if (n++ == 0 && line)
			snprintf(line, cap, "%s", buf);
	}
	assert_int_equal(pclose(p), 0);
	free(full);
	return n;
}

static int setup(void **state)
{
	if (tmp_setup(state) < 0)
		return -1;
	test_isolate_git();
	setenv("GIT_AUTHOR_NAME", "Test", 1);
	setenv("GIT_AUTHOR_EMAIL", "test@example.com", 1);
	setenv("GIT_COMMITTER_NAME", "Test", 1);
	setenv("GIT_COMMITTER_EMAIL", "test@example.com", 1);
	base = xasprintf("%s/tmp", tmp_base);
	repo = xasprintf("%s/repo", tmp_base);
	if (mkdir_p(base) < 0 || mkdir_p(repo) < 0)
		return -1;
	setenv("TMPDIR", base, 1);
	sh_lines("git init -q -b main . && echo a >a && git add a && git commit -qm one", NULL, 0);
	{
		char line[4096];

		sh_lines("git rev-parse HEAD", line, sizeof(line));
		snprintf(head, sizeof(head), "%.40s", line);
	}
	return 0;
}

static int teardown(void **state)
{
	unsetenv("TMPDIR");
	free(base);
	free(repo);
	return tmp_teardown(state);
}

/* A veles that checks HEAD out, writes the worktree's path to @fd and
 * waits to be killed (@hold) or removes it and exits. */
static pid_t checkout_child(int fd, bool hold)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct vcs *v;
		char *dir, *name;

		/* A failed assertion must not leave it waiting forever. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (vcs_open(repo, false, &v) < 0 ||
		    run_worktree_add(vcs_store_repo(v), head, &dir, &name) < 0)
			_exit(1);
		if (write(fd, dir, strlen(dir) + 1) < 0)
			_exit(1);
		if (hold)
			pause();
		_exit(run_worktree_remove(vcs_store_repo(v), dir, name) < 0 ? 1 : 0);
	}
	return pid;
}

static void read_path(int fd, char *path, size_t cap)
{
	ssize_t n = read(fd, path, cap - 1);

	assert_true(n > 0);
	path[n] = '\0';
}

static void killed(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
}

static void exited(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* Nothing of a temporary worktree anywhere: git's records, branches,
 * stale records `git worktree prune` would find, directories. */
static void assert_nothing_left(void)
{
	assert_int_equal(sh_lines("git worktree list | grep veles-run- || true", NULL, 0), 0);
	assert_int_equal(sh_lines("git branch --list 'veles-run-*'", NULL, 0), 0);
	assert_int_equal(sh_lines("git worktree prune -n -v", NULL, 0), 0);
	assert_int_equal(sh_lines("ls -A \"$TMPDIR\"", NULL, 0), 0);
}

static void test_killed_is_swept_by_the_next(void **state)
{
	char dead[4096], next[4096];
	int fds[2];
	pid_t a, b;

	UNUSED(state);
	assert_int_equal(pipe(fds), 0);
	a = checkout_child(fds[1], true);
	read_path(fds[0], dead, sizeof(dead));
	assert_true(path_is_dir(dead));
	killed(a);
	/* Killed: its worktree stays until another veles checks out. */
	assert_true(path_is_dir(dead));
	assert_int_equal(sh_lines("git worktree list | grep veles-run-", NULL, 0), 1);
	b = checkout_child(fds[1], true);
	read_path(fds[0], next, sizeof(next));
	assert_false(path_exists(dead));
	assert_true(path_is_dir(next));
	assert_int_equal(sh_lines("git worktree list | grep veles-run-", NULL, 0), 1);
	killed(b);
	/* And one that removes its own leaves nothing at all. */
	exited(checkout_child(fds[1], false));
	read_path(fds[0], next, sizeof(next));
	assert_nothing_left();
	close(fds[0]);
	close(fds[1]);
}

static void test_live_is_kept(void **state)
{
	char live[4096], other[4096];
	int fds[2];
	pid_t a;

	UNUSED(state);
	assert_int_equal(pipe(fds), 0);
	a = checkout_child(fds[1], true);
	read_path(fds[0], live, sizeof(live));
	exited(checkout_child(fds[1], false));
	read_path(fds[0], other, sizeof(other));
	assert_true(path_is_dir(live));
	assert_false(path_exists(other));
	assert_int_equal(sh_lines("git worktree list | grep veles-run-", NULL, 0), 1);
	killed(a);
	exited(checkout_child(fds[1], false));
	read_path(fds[0], other, sizeof(other));
	assert_nothing_left();
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_killed_is_swept_by_the_next),
		cmocka_unit_test(test_live_is_kept),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
