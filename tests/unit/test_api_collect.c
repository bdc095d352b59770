/*
 * libveles running commands, through its public header alone: a
 * collector on a program (veles_collect), the job matrix
 * (veles_run_matrix) and a bisect (veles_bisect_*), each in a scratch git
 * project made with the veles built beside the test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "veles.h"

static char dir[4096];
static int nwarnings;
static char last_warning[1024];

static void on_log(int level, const char *msg, void *data)
{
	(void)data;
	if (level == VELES_LOG_WARNING) {
		nwarnings++;
		snprintf(last_warning, sizeof(last_warning), "%s", msg);
	}
}

static void sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

static void write_file(const char *name, const char *text, mode_t mode)
{
	char path[8192];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

/* A git project with one commit of ./prog, which sleeps @sleep seconds. */
static int setup(void **state)
{
	const char *tmp = getenv("VELES_TEST_TMP"), *build = getenv("VELES_BUILDDIR");
	char prog[128];

	(void)state;
	sh("mkdir -p '%s'", tmp ? tmp : "/tmp");
	snprintf(dir, sizeof(dir), "%s/api-collect-XXXXXX", tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	/* No user configuration of whoever runs the tests. */
	assert_int_equal(setenv("HOME", dir, 1), 0);
	assert_int_equal(setenv("XDG_CONFIG_HOME", dir, 1), 0);
	snprintf(prog, sizeof(prog), "#!/bin/sh\nsleep %s\n", "0.02");
	write_file("prog", prog, 0755);
	sh("cd '%s' && git init -q && git config user.email t@example.com && "
	   "git config user.name T && git add prog && git commit -qm fast && "
	   "'%s/src/cli/veles' init >/dev/null",
	   dir, build ? build : ".");
	veles_set_log(on_log, NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	veles_set_log(NULL, NULL);
	sh("rm -rf '%s'", dir);
	return 0;
}

static veles_project *open_project(void)
{
	veles_project *pr = NULL;

	assert_int_equal(veles_project_open(dir, &pr), 0);
	return pr;
}

static void test_collect(void **state)
{
	veles_project *pr = open_project();
	const char *const time_opts[] = {"time", "-r", "2", "--warmup", "0", NULL};
	const char *const cmd[] = {"/bin/true", "x", NULL};
	const char *const opts[] = {"workload=small", "name=mine", NULL};
	veles_profile *p;
	veles_table *t;
	char *path = NULL, *path2 = NULL;
	const char *origin;

	(void)state;
	nwarnings = 0;
	assert_int_equal(veles_collect(pr, time_opts, cmd, opts, &path), 0);
	assert_non_null(path);
	assert_non_null(strstr(path, "/.veles/jobs/mine.perf"));
	/* Quiet, as `collect -q`: nothing to warn of, and no summary. */
	assert_int_equal(nwarnings, 0);
	/* The same name again: claimed beside it, never overwritten. */
	assert_int_equal(veles_collect(pr, time_opts, cmd, opts, &path2), 0);
	assert_non_null(strstr(path2, "/.veles/jobs/mine-2.perf"));
	assert_int_equal(veles_profile_load(path, &p), 0);
	assert_string_equal(veles_profile_get(p, "cmd"), "/bin/true");
	assert_string_equal(veles_profile_get(p, "workload"), "small");
	assert_string_equal(veles_profile_get(p, "collector"), "time");
	origin = veles_profile_get(p, "origin");
	assert_non_null(origin);
	assert_int_equal(strlen(origin), 40);
	assert_true(veles_profile_nresources(p) > 0);
	veles_profile_free(p);
	assert_int_equal(veles_project_pending(pr, &t), 0);
	assert_int_equal(veles_table_nrows(t), 2);
	veles_table_free(t);
	/* A changed tree is a warning, as `veles collect` gives it. */
	sh("cd '%s' && echo '# changed' >>prog", dir);
	veles_free(path2);
	assert_int_equal(veles_collect(pr, time_opts, cmd, opts, &path2), 0);
	assert_int_equal(nwarnings, 1);
	assert_non_null(strstr(last_warning, "uncommitted changes may skew the profile"));
	sh("cd '%s' && git checkout -q prog && rm .veles/jobs/mine-3.perf", dir);
	veles_free(path);
	veles_free(path2);
	veles_project_free(pr);
}

/* The memory collector's preload runtime is found from libveles.so (in
 * the build tree: build/runtime/), not from the test program's path. */
static void test_collect_memory(void **state)
{
	veles_project *pr = open_project();
	const char *const memory[] = {"memory", NULL}, *const cmd[] = {"/bin/true", NULL};
	char *path = NULL;
	veles_profile *p;

	(void)state;
	assert_int_equal(unsetenv("VELES_MEMORY_LIB"), 0);
	if (veles_collect(pr, memory, cmd, NULL, &path) < 0)
		fail_msg("collect memory: %s", veles_last_error());
	assert_int_equal(veles_profile_load(path, &p), 0);
	assert_string_equal(veles_profile_get(p, "collector"), "memory");
	veles_profile_free(p);
	assert_int_equal(unlink(path), 0);
	veles_free(path);
	veles_project_free(pr);
}

/*
 * A collector not built in: veles-collect-NAME on PATH, run in the project
 * with the environment docs/cli/collect.md names; the profile it wrote is
 * the path returned.
 */
static void test_collect_program(void **state)
{
	veles_project *pr = open_project();
	const char *const mine[] = {"mine", "-x", NULL}, *const cmd[] = {"./prog", "7", NULL};
	const char *const time_opts[] = {"time", "-r", "1", "--warmup", "0", NULL};
	const char *const truecmd[] = {"/bin/true", NULL};
	const char *const opts[] = {"name=src", NULL}, *const named[] = {"name=x", NULL};
	const char *const failing[] = {"mine", "fail", NULL};
	char *path = NULL, *src = NULL, *old_path = getenv("PATH"), buf[8192], seen[512], *want;
	FILE *f;

	(void)state;
	assert_int_equal(veles_collect(pr, time_opts, truecmd, opts, &src), 0);
	sh("mkdir -p '%s/bin'", dir);
	write_file("bin/veles-collect-mine",
		   "#!/bin/sh\n[ \"$1\" = fail ] && exit 3\n"
		   "echo \"$PWD|$VELES_PROJECT_ROOT|$*|${#VELES_ORIGIN}\" >seen.txt\n"
		   "cp \"$VELES_JOBS_DIR/src.perf\" \"$VELES_JOBS_DIR/.t\" && "
		   "mv \"$VELES_JOBS_DIR/.t\" \"$VELES_JOBS_DIR/ext.perf\"\n",
		   0755);
	old_path = old_path ? strdup(old_path) : strdup("/usr/bin:/bin");
	snprintf(buf, sizeof(buf), "%s/bin:%s", dir, old_path);
	assert_int_equal(setenv("PATH", buf, 1), 0);
	assert_int_equal(veles_collect(pr, mine, cmd, NULL, &path), 0);
	assert_non_null(path);
	assert_non_null(strstr(path, "/.veles/jobs/ext.perf"));
	snprintf(buf, sizeof(buf), "%s/seen.txt", dir);
	f = fopen(buf, "r");
	assert_non_null(f);
	assert_non_null(fgets(seen, sizeof(seen), f));
	fclose(f);
	/* In the project, told where it is, its arguments, a 40-digit origin. */
	assert_true(asprintf(&want, "%s|%s|-x -- ./prog 7|40\n", dir, dir) > 0);
	assert_string_equal(seen, want);
	free(want);
	assert_int_equal(veles_collect(pr, failing, NULL, NULL, NULL), VELES_ERR_CHILD);
	assert_non_null(strstr(veles_last_error(), "veles-collect-mine exited with status 3"));
	assert_int_equal(veles_collect(pr, mine, cmd, named, NULL), VELES_ERR_INVALID);
	assert_int_equal(setenv("PATH", old_path, 1), 0);
	sh("rm -rf '%s/bin' '%s/seen.txt' '%s' '%s'", dir, dir, path, src);
	free(old_path);
	veles_free(path);
	veles_free(src);
	veles_project_free(pr);
}

/* Bad input is one line and VELES_ERR_INVALID; nothing is run. */
static void test_collect_errors(void **state)
{
	veles_project *pr = open_project();
	const char *const cmd[] = {"/bin/true", NULL};
	const char *const nosuch[] = {"nosuch", NULL}, *const bad[] = {"time", "--bogus", NULL};
	const char *const time_only[] = {"time", NULL}, *const help[] = {"time", "-h", NULL};
	const char *const bad_key[] = {"colour=red", NULL}, *const bad_name[] = {"name=../x", NULL};
	char *path = (char *)1;

	(void)state;
	assert_int_equal(veles_collect(pr, nosuch, cmd, NULL, &path), VELES_ERR_INVALID);
	assert_null(path);
	assert_non_null(strstr(veles_last_error(), "unknown collector 'nosuch'"));
	assert_int_equal(veles_collect(pr, bad, cmd, NULL, NULL), VELES_ERR_INVALID);
	assert_non_null(strstr(veles_last_error(), "--bogus"));
	assert_int_equal(veles_collect(pr, time_only, NULL, NULL, NULL), VELES_ERR_INVALID);
	assert_non_null(strstr(veles_last_error(), "no command to profile"));
	assert_int_equal(veles_collect(pr, help, cmd, NULL, NULL), VELES_ERR_INVALID);
	assert_int_equal(veles_collect(pr, NULL, cmd, NULL, NULL), VELES_ERR_INVALID);
	assert_int_equal(veles_collect(pr, time_only, cmd, bad_key, NULL), VELES_ERR_INVALID);
	assert_non_null(strstr(veles_last_error(), "unknown option 'colour'"));
	assert_int_equal(veles_collect(pr, time_only, cmd, bad_name, NULL), VELES_ERR_INVALID);
	assert_null(strchr(veles_last_error(), '\n'));
	veles_project_free(pr);
}

static void test_run_matrix(void **state)
{
	veles_project *pr;
	veles_table *t;
	const char *const revs[] = {"HEAD", NULL};
	long ok, path, name, col, version;

	(void)state;
	write_file("veles.yml",
		   "cmds: [/bin/true]\nworkloads: [a, b]\n"
		   "collectors:\n  - name: time\n    params: {repeat: 2, warmup: 0}\n",
		   0644);
	pr = open_project();
	assert_int_equal(veles_run_matrix(pr, NULL, &t), 0);
	assert_int_equal(veles_table_nrows(t), 2);
	ok = veles_table_find(t, "ok"), path = veles_table_find(t, "path");
	name = veles_table_find(t, "name"), col = veles_table_find(t, "collector");
	version = veles_table_find(t, "version");
	assert_true(ok >= 0 && path >= 0 && name >= 0 && col >= 0 && version >= 0);
	for (size_t r = 0; r < 2; r++) {
		assert_true(veles_table_num(t, (size_t)ok, r) == 1);
		assert_string_equal(veles_table_text(t, (size_t)col, r), "time");
		assert_int_equal(access(veles_table_text(t, (size_t)path, r), R_OK), 0);
		assert_non_null(strstr(veles_table_text(t, (size_t)name, r), ".perf"));
		assert_int_equal(strlen(veles_table_text(t, (size_t)version, r)), 40);
	}
	assert_string_equal(veles_table_text(t, (size_t)veles_table_find(t, "workload"), 1), "b");
	veles_table_free(t);
	/* On a version: in a temporary worktree of HEAD. */
	assert_int_equal(veles_run_matrix(pr, revs, &t), 0);
	assert_int_equal(veles_table_nrows(t), 2);
	assert_true(veles_table_num(t, (size_t)ok, 0) == 1);
	veles_table_free(t);
	veles_project_free(pr);
	/* ./prog is the project's, wherever the caller is (not in the project). */
	write_file(
		"veles.yml",
		"cmds: [./prog]\ncollectors:\n  - name: time\n    params: {repeat: 1, warmup: 0}\n",
		0644);
	pr = open_project();
	assert_int_equal(veles_run_matrix(pr, NULL, &t), 0);
	assert_int_equal(veles_table_nrows(t), 1);
	assert_true(veles_table_num(t, (size_t)ok, 0) == 1);
	veles_table_free(t);
	veles_project_free(pr);
	/* A postprocessor's note (one workload: one size to fit) is a warning. */
	write_file("veles.yml",
		   "cmds: [/bin/true]\nworkloads: [\"7\"]\n"
		   "collectors:\n  - name: time\n    params: {repeat: 2, warmup: 0}\n"
		   "postprocessors:\n  - name: regression-analysis\n",
		   0644);
	pr = open_project();
	nwarnings = 0;
	assert_int_equal(veles_run_matrix(pr, NULL, &t), 0);
	assert_int_equal(nwarnings, 1);
	assert_non_null(strstr(last_warning, "regression-analysis"));
	assert_non_null(strstr(last_warning, "not fitted"));
	veles_table_free(t);
	veles_project_free(pr);
	/* No collectors: no job. */
	write_file("veles.yml", "cmds: [/bin/true]\n", 0644);
	pr = open_project();
	assert_int_equal(veles_run_matrix(pr, NULL, &t), VELES_ERR_INVALID);
	assert_null(t);
	assert_non_null(strstr(veles_last_error(), "no jobs"));
	veles_project_free(pr);
	sh("rm '%s/veles.yml'", dir);
}

/* fast, then slow (10x the sleep), then slow with another change. */
static void test_bisect(void **state)
{
	veles_project *pr = open_project();
	veles_bisect *b;
	veles_table *t;
	const char *const cmd[] = {"./prog", NULL};
	size_t last;

	(void)state;
	write_file("prog", "#!/bin/sh\nsleep 0.2\n", 0755);
	sh("cd '%s' && git commit -qam slow && echo x >README && git add README && "
	   "git commit -qm readme",
	   dir);
	assert_int_equal(veles_bisect_new(pr, &b), 0);
	assert_int_equal(veles_bisect_set(b, "on", "real"), 0);
	assert_int_equal(veles_bisect_set(b, "runs", "3"), 0);
	assert_int_equal(veles_bisect_set(b, "seed", "7"), 0);
	assert_int_equal(veles_bisect_set(b, "colour", "red"), VELES_ERR_INVALID);
	assert_int_equal(veles_bisect_set(b, "on", "wall"), VELES_ERR_INVALID);
	assert_int_equal(veles_bisect_set(b, "alpha", "0.7"), VELES_ERR_INVALID);
	assert_int_equal(veles_bisect_run(b, "HEAD~2", "HEAD~2", cmd, &t), VELES_ERR_INVALID);
	assert_non_null(strstr(veles_last_error(), "same version"));
	assert_int_equal(veles_bisect_run(b, "HEAD~2", "HEAD", NULL, &t), VELES_ERR_INVALID);
	assert_null(t);
	assert_int_equal(veles_bisect_run(b, "HEAD~2", "HEAD", cmd, &t), 0);
	/* HEAD~1 was measured and is bad; it is the first slow version. */
	assert_true(veles_table_nrows(t) >= 2);
	last = veles_table_nrows(t) - 1;
	assert_string_equal(veles_table_text(t, 1, 0), "bad");
	assert_string_equal(veles_table_text(t, 1, last), "first");
	assert_string_equal(veles_table_text(t, 0, last), veles_table_text(t, 0, 0));
	assert_true(veles_table_num(t, 3, last) > 0); /* slower: +900% or so */
	veles_table_free(t);
	veles_bisect_free(b);
	veles_bisect_free(NULL);
	veles_project_free(pr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collect),		cmocka_unit_test(test_collect_memory),
		cmocka_unit_test(test_collect_program), cmocka_unit_test(test_collect_errors),
		cmocka_unit_test(test_run_matrix),	cmocka_unit_test(test_bisect),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
