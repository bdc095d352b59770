/* vcs_quick.c: HEAD and a clean work tree read from git's files agree
 * with libgit2, and every layout they cannot read says so. */
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
#include "vcs/vcs.h"

/* Runs shell command @fmt in directory @dir; fails the test on error. */
static void sh(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sh(const char *dir, const char *fmt, ...)
{
	struct buf cmd = {0};
	va_list ap;

	buf_addf(&cmd, "cd '%s' && (", dir);
	va_start(ap, fmt);
	buf_vaddf(&cmd, fmt, ap);
	va_end(ap);
	buf_adds(&cmd, ") >/dev/null 2>&1");
	assert_int_equal(system(cmd.data), 0);
	buf_release(&cmd);
}

/* What `git rev-parse REV` says in @dir. */
static void rev_parse(const char *dir, const char *rev, char id[41])
{
	char *cmd = xasprintf("cd '%s' && git rev-parse %s", dir, rev);
	FILE *p = popen(cmd, "r");

	assert_non_null(p);
	assert_non_null(fgets(id, 41, p));
	pclose(p);
	free(cmd);
}

/* libgit2's answers, for comparison. */
static void libgit2_view(const char *dir, char head[41], bool *dirty)
{
	struct vcs *v;

	assert_int_equal(vcs_open(dir, false, &v), 0);
	assert_int_equal(vcs_head(v, head), 0);
	*dirty = false;
	assert_int_equal(vcs_is_dirty(v, dirty), 0);
	vcs_close(v);
}

/* A repository with one committed file, the index written well after it
 * (so no entry is racily clean), and .veles/ as veles init makes it. */
static char *new_repo(void)
{
	char *d = tmp_fresh_dir();

	sh(d, "git init -q -b main . && mkdir .veles src && echo 'int x;' >src/a.c && "
	      "echo b >b.txt && touch -d '2001-01-01' src/a.c b.txt && git add . && "
	      "git commit -qm one");
	return d;
}

static void assert_agrees(const char *d, bool want_clean)
{
	char quick[41], git[41];
	bool dirty;

	libgit2_view(d, git, &dirty);
	assert_int_equal(vcs_quick_head(d, quick), 0);
	assert_string_equal(quick, git);
	assert_int_equal(vcs_quick_clean(d, quick), want_clean);
	if (want_clean)
		assert_false(dirty);
}

static void test_loose_and_packed_refs(void **state)
{
	char *d = new_repo();
	char id[41], want[41];

	UNUSED(state);
	assert_agrees(d, true);
	sh(d, "git pack-refs --all");
	assert_agrees(d, true);
	rev_parse(d, "HEAD", want);
	sh(d, "git checkout -q --detach");
	assert_int_equal(vcs_quick_head(d, id), 0);
	assert_string_equal(id, want);
	free(d);
}

static void test_changes_are_never_clean(void **state)
{
	char *d = new_repo();
	char id[41];
	bool dirty;

	UNUSED(state);
	sh(d, "echo 'int y;' >>src/a.c");
	libgit2_view(d, id, &dirty);
	assert_true(dirty);
	assert_false(vcs_quick_clean(d, id));
	sh(d, "git add src/a.c"); /* staged only: the index's tree differs */
	assert_false(vcs_quick_clean(d, id));
	sh(d, "git commit -qm two && touch -d '2001-01-01' src/a.c && git update-index --refresh");
	assert_agrees(d, true);
	sh(d, "rm b.txt");
	assert_int_equal(vcs_quick_head(d, id), 0);
	assert_false(vcs_quick_clean(d, id));
	free(d);
}

static void test_untracked_and_veles_files_do_not_count(void **state)
{
	char *d = new_repo();

	UNUSED(state);
	sh(d, "echo new >untracked.txt && echo p >.veles/x.perf");
	assert_agrees(d, true);
	free(d);
}

static void test_project_in_a_subdirectory_and_worktree(void **state)
{
	char *d = new_repo();
	char *sub = xasprintf("%s/src", d);
	char *wt = xasprintf("%s-wt", d);
	char id[41], want[41];

	UNUSED(state);
	sh(sub, "mkdir .veles");
	assert_agrees(sub, true);
	sh(d,
	   "git worktree add -q -b other '%s' && cd '%s' && echo c >c.txt && git add c.txt && "
	   "git commit -qm wt",
	   wt, wt);
	rev_parse(wt, "HEAD", want);
	assert_int_equal(vcs_quick_head(wt, id), 0);
	assert_string_equal(id, want);
	rev_parse(d, "HEAD", want);
	assert_int_equal(vcs_quick_head(d, id), 0);
	assert_string_equal(id, want);
	free(wt);
	free(sub);
	free(d);
}

/* Many packs, many objects: the search in each pack index finds the one. */
static void test_commit_in_a_pack(void **state)
{
	char *d = new_repo();
	char quick[41], git[41];
	bool dirty;

	UNUSED(state);
	sh(d, "for i in 1 2 3 4 5 6 7 8; do git commit -q --allow-empty -m $i; done && "
	      "git repack -q && git commit -q --allow-empty -m loose && git repack -q && "
	      "for i in 1 2 3; do git commit -q --allow-empty -m $i; done && "
	      "git gc -q && git commit -q --allow-empty -m top && git repack -q -d");
	assert_agrees(d, true);
	/* An older commit may be stored as a delta: then "cannot tell". */
	sh(d, "git checkout -q HEAD~5");
	libgit2_view(d, git, &dirty);
	assert_int_equal(vcs_quick_head(d, quick), 0);
	assert_string_equal(quick, git);
	assert_true(!vcs_quick_clean(d, quick) || !dirty);
	free(d);
}

static void test_what_it_cannot_tell(void **state)
{
	char *unborn = tmp_fresh_dir();
	char *plain = tmp_fresh_dir();
	char *d = new_repo();
	char id[41];

	UNUSED(state);
	sh(unborn, "git init -q .");
	assert_int_equal(vcs_quick_head(unborn, id), 1);
	sh(plain, "mkdir -p .veles/store.git");
	assert_int_equal(vcs_quick_head(plain, id), 1);
	/* A packed commit is read from its pack; a missing one proves nothing. */
	sh(d, "git gc -q");
	assert_agrees(d, true);
	assert_int_equal(vcs_quick_head(d, id), 0);
	sh(d, "rm -f .git/objects/pack/*.pack");
	assert_false(vcs_quick_clean(d, id));
	free(d);
	free(plain);
	free(unborn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loose_and_packed_refs),
		cmocka_unit_test(test_changes_are_never_clean),
		cmocka_unit_test(test_untracked_and_veles_files_do_not_count),
		cmocka_unit_test(test_project_in_a_subdirectory_and_worktree),
		cmocka_unit_test(test_commit_in_a_pack),
		cmocka_unit_test(test_what_it_cannot_tell),
	};

	test_isolate_git();
	setenv("GIT_AUTHOR_NAME", "Test", 1);
	setenv("GIT_AUTHOR_EMAIL", "test@example.com", 1);
	setenv("GIT_COMMITTER_NAME", "Test", 1);
	setenv("GIT_COMMITTER_EMAIL", "test@example.com", 1);
	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
