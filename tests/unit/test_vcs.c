/* Version context: the plain backend's counter and the git backend's view
 * of a real repository made here with libgit2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vcs/git_lazy.h"
#include <cmocka.h>

#include "testutil.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "vcs/vcs.h"

static unsigned serial;

struct seen {
	char ids[8][41];
	unsigned counters[8];
	size_t n;
};

static int record(const struct vcs_version *v, void *arg)
{
	struct seen *s = arg;

	memcpy(s->ids[s->n], v->id, 41);
	s->counters[s->n++] = v->counter;
	return 0;
}

static void test_plain_needs_init(void **state)
{
	char *d = tmp_fresh_dir();
	struct vcs *v = (struct vcs *)1;

	UNUSED(state);
	assert_int_equal(vcs_open(d, false, &v), ERR_NOTFOUND);
	assert_null(v);
	assert_non_null(strstr(err_msg(), "not a Veles project"));
	free(d);
}

static void test_plain_versions(void **state)
{
	char *d = tmp_fresh_dir();
	char v1[41], v2[41], v3[41], id[41], prefix[9];
	struct vcs_version info;
	struct seen seen = {0};
	struct vcs *v;
	bool dirty = true;

	UNUSED(state);
	assert_int_equal(vcs_open(d, true, &v), 0);
	assert_int_equal(vcs_kind(v), VCS_PLAIN);
	assert_string_equal(vcs_kind_name(v), "plain");
	assert_int_equal(vcs_head(v, v1), 0);
	assert_int_equal(vcs_version_info(v, v1, &info), 0);
	assert_int_equal(info.counter, 1);
	assert_string_equal(info.summary, "initial version");
	assert_string_equal(info.author, "Veles");
	assert_string_equal(info.email, "veles@localhost");
	assert_int_equal(vcs_new_version(v, "second\n\nbody", v2), 0);
	assert_int_equal(vcs_new_version(v, "third", v3), 0);
	vcs_close(v);

	/* Reopening finds the same line; create=true does not add a v1. */
	assert_int_equal(vcs_open(d, true, &v), 0);
	assert_int_equal(vcs_head(v, id), 0);
	assert_string_equal(id, v3);
	assert_int_equal(vcs_resolve(v, "v2", id), 0);
	assert_string_equal(id, v2);
	assert_int_equal(vcs_resolve(v, "HEAD~2", id), 0);
	assert_string_equal(id, v1);
	assert_int_equal(vcs_resolve(v, "HEAD", id), 0);
	assert_string_equal(id, v3);
	snprintf(prefix, sizeof(prefix), "%.8s", v2);
	assert_int_equal(vcs_resolve(v, prefix, id), 0);
	assert_string_equal(id, v2);
	assert_int_equal(vcs_resolve(v, "v4", id), ERR_NOTFOUND);
	assert_non_null(strstr(err_msg(), "v3"));
	assert_int_equal(vcs_resolve(v, "nonsense", id), ERR_NOTFOUND);
	assert_int_equal(vcs_version_info(v, "v2", &info), 0);
	assert_int_equal(info.counter, 2);
	assert_string_equal(info.summary, "second");
	assert_int_equal(info.nparents, 1);
	assert_string_equal(info.parents[0], v1);

	assert_int_equal(vcs_walk(v, NULL, 0, record, &seen), 0);
	assert_int_equal(seen.n, 3);
	assert_string_equal(seen.ids[0], v3);
	assert_int_equal(seen.counters[0], 3);
	assert_int_equal(seen.counters[2], 1);
	seen.n = 0;
	assert_int_equal(vcs_walk(v, "v2", 1, record, &seen), 0);
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.counters[0], 2);

	assert_null(vcs_branch(v));
	assert_int_equal(vcs_is_dirty(v, &dirty), 0);
	assert_false(dirty);
	vcs_close(v);
	free(d);
}

/* Writes @content to @file in @repo's work tree and commits it. */
static void commit_file(git_repository *repo, const char *file, const char *content,
			const char *msg, git_oid *out)
{
	git_signature *sig;
	git_index *idx;
	git_oid tree_id, parent_id;
	git_tree *tree;
	git_commit *parent = NULL;
	char *path = xasprintf("%s%s", git_repository_workdir(repo), file);
	char *dir = xstrdup(path);

	*strrchr(dir, '/') = '\0';
	assert_int_equal(mkdir_p(dir), 0);
	assert_int_equal(file_write_atomic(path, content, strlen(content)), 0);
	assert_int_equal(git_repository_index(&idx, repo), 0);
	assert_int_equal(git_index_add_bypath(idx, file), 0);
	assert_int_equal(git_index_write(idx), 0);
	assert_int_equal(git_index_write_tree(&tree_id, idx), 0);
	assert_int_equal(git_tree_lookup(&tree, repo, &tree_id), 0);
	assert_int_equal(
		git_signature_new(&sig, "Ada", "ada@example.org", 1700000000 + serial++, 60), 0);
	if (git_reference_name_to_id(&parent_id, repo, "HEAD") == 0)
		assert_int_equal(git_commit_lookup(&parent, repo, &parent_id), 0);
	assert_int_equal(git_commit_create(out, repo, "HEAD", sig, sig, NULL, msg, tree,
					   parent ? 1 : 0, (const git_commit **)&parent),
			 0);
	git_commit_free(parent);
	git_tree_free(tree);
	git_signature_free(sig);
	git_index_free(idx);
	free(dir);
	free(path);
}

static void test_git_backend(void **state)
{
	char *d = tmp_fresh_dir();
	char *sub = xasprintf("%s/sub", d), *untracked = xasprintf("%s/new.txt", d);
	char *modified = xasprintf("%s/a.txt", d), *veles = xasprintf("%s/sub/.veles/x", d);
	git_repository *repo;
	git_oid c1, c2, c3, tag;
	git_object *target;
	git_signature *sig;
	char id[41], h1[41], h3[41], *branch;
	struct vcs_version info;
	struct seen seen = {0};
	struct vcs *v;
	bool dirty;

	UNUSED(state);
	assert_int_equal(git_repository_init(&repo, d, 0), 0);
	assert_int_equal(vcs_open(d, false, &v), 0);
	assert_int_equal(vcs_head(v, id), ERR_NOTFOUND); /* no commits yet */
	vcs_close(v);
	commit_file(repo, "a.txt", "one\n", "first", &c1);
	commit_file(repo, "sub/.veles/x", "state\n", "second", &c2);
	commit_file(repo, "a.txt", "two\n", "third\n\nwith a body", &c3);
	assert_int_equal(git_object_lookup(&target, repo, &c1, GIT_OBJECT_COMMIT), 0);
	assert_int_equal(git_signature_now(&sig, "Ada", "ada@example.org"), 0);
	assert_int_equal(git_tag_create(&tag, repo, "v1.0", target, sig, "release", 0), 0);
	git_signature_free(sig);
	git_object_free(target);
	git_oid_tostr(h1, sizeof(h1), &c1);
	git_oid_tostr(h3, sizeof(h3), &c3);

	/* The project root may be below the work tree's top. */
	assert_int_equal(mkdir_p(sub), 0);
	assert_int_equal(vcs_open(sub, false, &v), 0);
	assert_int_equal(vcs_kind(v), VCS_GIT);
	assert_int_equal(vcs_head(v, id), 0);
	assert_string_equal(id, h3);
	branch = vcs_branch(v);
	assert_non_null(branch);
	free(branch);
	assert_int_equal(vcs_resolve(v, "HEAD~2", id), 0);
	assert_string_equal(id, h1);
	assert_int_equal(vcs_resolve(v, "v1.0", id), 0); /* annotated tag, peeled */
	assert_string_equal(id, h1);
	assert_int_equal(vcs_resolve(v, "no-such-branch", id), ERR_NOTFOUND);
	assert_int_equal(vcs_version_info(v, "HEAD", &info), 0);
	assert_string_equal(info.summary, "third");
	assert_string_equal(info.author, "Ada");
	assert_int_equal(info.tz_offset, 60);
	assert_int_equal(info.counter, 0);
	assert_int_equal(strlen(info.short_id), 7);

	assert_int_equal(vcs_walk(v, NULL, 0, record, &seen), 0);
	assert_int_equal(seen.n, 3);
	assert_string_equal(seen.ids[0], h3);
	assert_string_equal(seen.ids[2], h1);
	seen.n = 0;
	assert_int_equal(vcs_walk(v, "HEAD~1", 0, record, &seen), 0);
	assert_int_equal(seen.n, 2);

	/* Untracked files and .veles/ do not make the tree dirty. */
	assert_int_equal(file_write_atomic(untracked, "x", 1), 0);
	assert_int_equal(file_write_atomic(veles, "changed\n", 8), 0);
	assert_int_equal(vcs_is_dirty(v, &dirty), 0);
	assert_false(dirty);
	assert_int_equal(file_write_atomic(modified, "three\n", 6), 0);
	assert_int_equal(vcs_is_dirty(v, &dirty), 0);
	assert_true(dirty);
	assert_int_equal(vcs_new_version(v, "x", id), ERR_INVALID);
	vcs_close(v);
	git_repository_free(repo);
	free(sub);
	free(untracked);
	free(modified);
	free(veles);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_needs_init),
		cmocka_unit_test(test_plain_versions),
		cmocka_unit_test(test_git_backend),
	};
	int ret;

	/* No identity configured: the fallback signature must do. libgit2
	 * reads HOME once, at init. */
	test_isolate_git();
	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
	git_libgit2_shutdown();
	return ret;
}
