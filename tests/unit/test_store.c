/* The profile store: add/rm/list/read, concurrent writers, crashes, and
 * push/pull through a bare remote made here. */
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

#include "vcs/git_lazy.h"
#include <cmocka.h>
#include <fcntl.h>

#include "store/store.h"
#include "testutil.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "vcs/vcs.h"

#define V1 "1111111111111111111111111111111111111111"
#define V2 "2222222222222222222222222222222222222222"
#define V3 "3333333333333333333333333333333333333333"

/* Fails with the library's own message, which says more than a code. */
#define assert_ok(call)                                                                            \
	do {                                                                                       \
		if ((call) < 0)                                                                    \
			fail_msg("%s: %s", #call, err_msg());                                      \
	} while (0)

static unsigned serial;

struct project {
	char *dir;
	struct vcs *vcs;
	struct store *store;
};

/* A fresh plain project: the store does not care which backend. */
static void project_new(struct project *p)
{
	p->dir = xasprintf("%s/p%u", tmp_base, serial++);
	assert_int_equal(mkdir_p(p->dir), 0);
	assert_int_equal(vcs_open(p->dir, true, &p->vcs), 0);
	assert_int_equal(store_open(p->vcs, &p->store), 0);
}

static void project_free(struct project *p)
{
	store_close(p->store);
	vcs_close(p->vcs);
	free(p->dir);
}

static struct store_item item(const char *type, const char *name, const char *json)
{
	struct store_item it = {type, name, json, strlen(json), false};

	return it;
}

static size_t count_profiles(struct store *s, const char *version)
{
	struct store_entry *e;
	size_t n;

	assert_int_equal(store_list(s, version, &e, &n), 0);
	store_entries_free(e, n);
	return n;
}

static char *ledger_message(struct project *p)
{
	git_repository *repo = vcs_store_repo(p->vcs);
	git_oid id;
	git_commit *c;
	char *msg;

	assert_int_equal(git_reference_name_to_id(&id, repo, "refs/veles/ledger"), 0);
	assert_int_equal(git_commit_lookup(&c, repo, &id), 0);
	msg = xstrdup(git_commit_summary(c));
	git_commit_free(c);
	return msg;
}

static void test_add_list_read(void **state)
{
	struct project p;
	struct store_item items[3] = {
		item("time", "b.perf", "{\"t\":2}"),
		item("memory", "m.perf", "{\"m\":1}"),
		item("time", "a.perf", "{\"t\":1}"),
	};
	bool added[3];
	char blobs[3][41];
	struct store_entry *e, found;
	char where[41];
	struct buf b = BUF_INIT;
	size_t n;
	char *msg;

	UNUSED(state);
	project_new(&p);
	assert_int_equal(count_profiles(p.store, V1), 0); /* no ledger yet */
	assert_int_equal(store_add(p.store, V1, items, 3, added, blobs), 0);
	assert_true(added[0] && added[1] && added[2]);
	msg = ledger_message(&p);
	assert_string_equal(msg, "add 3 profiles to 1111111");
	free(msg);
	assert_int_equal(store_list(p.store, V1, &e, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(e[0].type, "memory");
	assert_string_equal(e[1].name, "a.perf");
	assert_string_equal(e[2].name, "b.perf");
	assert_string_equal(e[2].blob, blobs[0]);
	store_entries_free(e, n);
	assert_int_equal(count_profiles(p.store, V2), 0);

	/* Full and abbreviated ids read the JSON back as given. */
	assert_int_equal(store_read(p.store, blobs[1], &b), 0);
	assert_string_equal(buf_str(&b), "{\"m\":1}");
	buf_reset(&b);
	blobs[2][6] = '\0';
	assert_int_equal(store_read(p.store, blobs[2], &b), 0);
	assert_string_equal(buf_str(&b), "{\"t\":1}");
	assert_int_equal(store_read(p.store, "zzzz", &b), ERR_INVALID);
	assert_int_equal(store_find_blob(p.store, V1, blobs[2], &found, NULL), 0);
	assert_string_equal(found.name, "a.perf");
	free(found.type);
	free(found.name);
	assert_int_equal(store_find_blob(p.store, NULL, blobs[2], &found, where), 0);
	assert_string_equal(where, V1);
	free(found.type);
	free(found.name);
	assert_int_equal(store_find_blob(p.store, V2, blobs[2], &found, NULL), ERR_NOTFOUND);
	buf_release(&b);
	project_free(&p);
}

/* Bytes compressed already are stored without deflating them again: the
 * same blob id as git gives them, read back as they were, and a loose
 * object barely larger than they are. */
static void test_compressed_blob(void **state)
{
	struct project p;
	char data[4096], blobs[2][41], *path;
	struct store_item it = {"time", "c.perf", data, sizeof(data), true};
	struct buf b = BUF_INIT;
	struct stat st;
	uint32_t x = 12345;

	UNUSED(state);
	for (size_t i = 0; i < sizeof(data); i++) {
		x = x * 1103515245 + 12345;
		data[i] = (char)(x >> 24);
	}
	project_new(&p);
	assert_ok(store_add(p.store, V1, &it, 1, NULL, &blobs[0]));
	it.compressed = false;
	assert_ok(store_add(p.store, V2, &it, 1, NULL, &blobs[1]));
	assert_string_equal(blobs[0], blobs[1]);
	assert_ok(store_read(p.store, blobs[0], &b));
	assert_int_equal(b.len, sizeof(data));
	assert_memory_equal(b.data, data, sizeof(data));
	path = xasprintf("%s/.veles/store.git/objects/%.2s/%s", p.dir, blobs[0], blobs[0] + 2);
	assert_int_equal(stat(path, &st), 0);
	/* zlib's stored blocks: 5 bytes each, and the header. */
	assert_true(st.st_size < (off_t)sizeof(data) + 64);
	free(path);
	buf_release(&b);
	project_free(&p);
}

static void test_duplicates_and_suffixes(void **state)
{
	struct project p;
	struct store_item again[3] = {
		item("time", "a.perf", "{\"t\":1}"), /* same content: skipped */
		item("time", "a.perf", "{\"t\":9}"), /* name taken: a-2.perf */
		item("time", "a.perf", "{\"t\":8}"), /* a-3.perf */
	};
	struct store_entry *e;
	bool added[3];
	size_t n;

	UNUSED(state);
	project_new(&p);
	assert_int_equal(store_add(p.store, V1, again, 1, added, NULL), 0);
	assert_int_equal(store_add(p.store, V1, again, 3, added, NULL), 0);
	assert_false(added[0]);
	assert_true(added[1] && added[2]);
	assert_int_equal(store_list(p.store, V1, &e, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(e[0].name, "a-2.perf");
	assert_string_equal(e[1].name, "a-3.perf");
	assert_string_equal(e[2].name, "a.perf");
	store_entries_free(e, n);
	/* Nothing new: no ledger commit either. */
	assert_int_equal(store_add(p.store, V1, again, 1, added, NULL), 0);
	assert_false(added[0]);
	assert_int_equal(store_add(p.store, V1, (struct store_item[]){item("a/b", "x", "{}")}, 1,
				   NULL, NULL),
			 ERR_INVALID);
	project_free(&p);
}

static int count_version(const char *version, const struct store_entry *e, size_t n, void *arg)
{
	size_t *total = arg;

	assert_int_equal(strlen(version), 40);
	assert_non_null(e[0].type);
	total[0]++;
	total[1] += n;
	return 0;
}

static void test_rm_and_each_version(void **state)
{
	struct project p;
	struct store_item items[2] = {item("time", "a", "{\"a\":1}"), item("mixed", "b", "{}")};
	struct store_entry gone[2] = {{"time", "a", ""}, {"mixed", "b", ""}};
	size_t total[2] = {0, 0};
	char *msg;

	UNUSED(state);
	project_new(&p);
	assert_int_equal(store_add(p.store, V1, items, 2, NULL, NULL), 0);
	assert_int_equal(store_add(p.store, V2, items, 1, NULL, NULL), 0);
	assert_int_equal(store_each_version(p.store, count_version, total), 0);
	assert_int_equal(total[0], 2);
	assert_int_equal(total[1], 3);

	assert_int_equal(store_rm(p.store, V1, gone, 1), 0);
	msg = ledger_message(&p);
	assert_string_equal(msg, "remove 1 profile from 1111111");
	free(msg);
	assert_int_equal(count_profiles(p.store, V1), 1);
	assert_int_equal(store_rm(p.store, V1, gone, 1), ERR_NOTFOUND);
	assert_non_null(strstr(err_msg(), "time/a"));
	/* The last profile gone takes the version out of the index. */
	assert_int_equal(store_rm(p.store, V1, gone + 1, 1), 0);
	total[0] = total[1] = 0;
	assert_int_equal(store_each_version(p.store, count_version, total), 0);
	assert_int_equal(total[0], 1);
	assert_int_equal(total[1], 1);
	project_free(&p);
}

/* One writer process: its own handles, @n adds of one profile each. */
static void writer(const char *dir, unsigned who, unsigned n)
{
	struct vcs *v;
	struct store *s;
	unsigned i;

	if (vcs_open(dir, false, &v) < 0 || store_open(v, &s) < 0)
		_exit(2);
	for (i = 0; i < n; i++) {
		char name[64], json[64];
		struct store_item it;

		snprintf(name, sizeof(name), "w%u-%u.perf", who, i);
		snprintf(json, sizeof(json), "{\"writer\":%u,\"i\":%u}", who, i);
		it = item(i % 2 ? "time" : "memory", name, json);
		if (store_add(s, V1, &it, 1, NULL, NULL) < 0) {
			fprintf(stderr, "writer %u: %s\n", who, err_msg());
			_exit(1);
		}
	}
	store_close(s);
	vcs_close(v);
	_exit(0);
}

static void test_concurrent_writers(void **state)
{
	struct project p;
	pid_t pids[8];
	size_t i;
	int status;

	UNUSED(state);
	project_new(&p);
	for (i = 0; i < ARRAY_SIZE(pids); i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0)
			writer(p.dir, (unsigned)i, 5);
	}
	for (i = 0; i < ARRAY_SIZE(pids); i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	assert_int_equal(count_profiles(p.store, V1), 40);
	project_free(&p);
}

static void test_killed_writer(void **state)
{
	struct project p;
	struct store_entry *e;
	struct buf b = BUF_INIT;
	pid_t pid;
	size_t n, i;
	int status;

	UNUSED(state);
	project_new(&p);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		writer(p.dir, 0, 1000000);
	/* Some adds landed (however slow the machine), then a kill in the
	 * middle of one. */
	for (int k = 0; k < 3000 && count_profiles(p.store, V1) < 3; k++)
		usleep(10 * 1000);
	usleep((useconds_t)(rand() % 20000));
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	project_free(&p);

	/* A fresh open sees a whole ledger: every listed profile reads. */
	p.dir = xasprintf("%s/p%u", tmp_base, serial - 1);
	assert_int_equal(vcs_open(p.dir, false, &p.vcs), 0);
	assert_int_equal(store_open(p.vcs, &p.store), 0);
	assert_int_equal(store_list(p.store, V1, &e, &n), 0);
	assert_true(n > 0);
	for (i = 0; i < n; i++) {
		buf_reset(&b);
		assert_int_equal(store_read(p.store, e[i].blob, &b), 0);
		assert_non_null(strstr(buf_str(&b), "\"writer\":0"));
	}
	store_entries_free(e, n);
	buf_release(&b);
	project_free(&p);
}

static void test_stale_lock_is_cleared(void **state)
{
	struct project p;
	struct store_item it = item("time", "x", "{}");
	struct timespec old[2] = {{time(NULL) - 60, 0}, {time(NULL) - 60, 0}};
	char *lock;

	UNUSED(state);
	project_new(&p);
	assert_int_equal(store_add(p.store, V1, &it, 1, NULL, NULL), 0);
	/* What a process killed between locking and renaming leaves. */
	lock = xasprintf("%s/.veles/store.git/refs/veles/ledger.lock", p.dir);
	assert_int_equal(file_write_atomic(lock, "junk\n", 5), 0);
	assert_int_equal(utimensat(AT_FDCWD, lock, old, 0), 0);
	it = item("time", "y", "{\"y\":1}");
	assert_int_equal(store_add(p.store, V1, &it, 1, NULL, NULL), 0);
	assert_false(path_exists(lock));
	assert_int_equal(count_profiles(p.store, V1), 2);
	free(lock);
	project_free(&p);
}

/*
 * A writer killed while it held the ledger's lock: its pid is still in
 * veles/ledger.owner (nobody holds that file's flock any more), and the
 * lock was made while it owned it. The next writer takes the lock over at
 * once. Both carry a time an hour ahead, which the age rule for locks of
 * unknown owners never clears: only the takeover can let the add land.
 */
static void test_dead_owner_lock_is_taken_over(void **state)
{
	struct project p;
	struct store_item it = item("time", "x", "{}");
	struct timespec later[2] = {{time(NULL) + 3600, 0}, {time(NULL) + 3600, 0}};
	char *lock, *owner;

	UNUSED(state);
	project_new(&p);
	assert_int_equal(store_add(p.store, V1, &it, 1, NULL, NULL), 0);
	lock = xasprintf("%s/.veles/store.git/refs/veles/ledger.lock", p.dir);
	owner = xasprintf("%s/.veles/store.git/veles/ledger.owner", p.dir);
	/* The first add made the owner file and left it empty. */
	assert_true(path_exists(owner));
	assert_int_equal(file_write_atomic(owner, "999999\n", 7), 0);
	assert_int_equal(file_write_atomic(lock, "junk\n", 5), 0);
	assert_int_equal(utimensat(AT_FDCWD, owner, later, 0), 0);
	assert_int_equal(utimensat(AT_FDCWD, lock, later, 0), 0);
	it = item("time", "y", "{\"y\":1}");
	assert_ok(store_add(p.store, V1, &it, 1, NULL, NULL));
	assert_false(path_exists(lock));
	assert_int_equal(count_profiles(p.store, V1), 2);
	free(lock);
	free(owner);
	project_free(&p);
}

static char *bare_remote(void)
{
	char *dir = xasprintf("%s/remote%u.git", tmp_base, serial++);
	git_repository *r;

	assert_int_equal(git_repository_init(&r, dir, 1), 0);
	git_repository_free(r);
	return dir;
}

static void test_push_pull(void **state)
{
	struct project a, b;
	char *remote = bare_remote();
	struct buf sum = BUF_INIT;
	struct store_item ia = item("time", "same.perf", "{\"from\":\"a\"}");
	struct store_item ib = item("time", "same.perf", "{\"from\":\"b\"}");
	struct store_item ib2 = item("memory", "m.perf", "{\"from\":\"b\"}");
	struct store_entry *e;
	git_remote *named;
	size_t n;

	UNUSED(state);
	project_new(&a);
	project_new(&b);
	assert_int_equal(git_remote_create(&named, vcs_store_repo(a.vcs), "origin", remote), 0);
	git_remote_free(named);
	assert_ok(store_push(a.store, "origin", &sum));
	assert_non_null(strstr(buf_str(&sum), "nothing to push"));
	buf_reset(&sum);
	if (store_pull(b.store, remote, &sum) < 0)
		fail_msg("%s", err_msg());
	assert_non_null(strstr(buf_str(&sum), "no profiles"));
	buf_reset(&sum);

	/* a pushes first; b, having added too, is told to pull. */
	assert_int_equal(store_add(a.store, V1, &ia, 1, NULL, NULL), 0);
	assert_ok(store_push(a.store, "origin", &sum));
	assert_string_equal(buf_str(&sum), "pushed 1 profile in 1 version to origin");
	buf_reset(&sum);
	assert_ok(store_push(a.store, "origin", &sum));
	assert_non_null(strstr(buf_str(&sum), "up to date"));
	buf_reset(&sum);
	assert_int_equal(store_add(b.store, V1, &ib, 1, NULL, NULL), 0);
	assert_int_equal(store_add(b.store, V2, &ib2, 1, NULL, NULL), 0);
	assert_int_equal(store_push(b.store, remote, &sum), ERR_CONFLICT);
	assert_string_equal(err_msg(), "remote has profiles you do not; run `veles pull` first");
	buf_reset(&sum);

	/* b merges: the same name with other content keeps both. */
	assert_ok(store_pull(b.store, remote, &sum));
	assert_non_null(strstr(buf_str(&sum), "pulled 1 profile in 1 version from"));
	assert_non_null(strstr(buf_str(&sum), "(merged)"));
	buf_reset(&sum);
	assert_int_equal(store_list(b.store, V1, &e, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(e[0].name, "same-remote.perf");
	assert_string_equal(e[1].name, "same.perf");
	store_entries_free(e, n);
	assert_ok(store_pull(b.store, remote, &sum));
	assert_non_null(strstr(buf_str(&sum), "already up to date"));
	buf_reset(&sum);
	assert_ok(store_push(b.store, remote, &sum));
	buf_reset(&sum);

	/* a fast-forwards to b's merge and sees everything. (Its own plain
	 * versions fast-forward too when a and b began them in different
	 * seconds: their first commits differ only in time; not asserted.) */
	assert_ok(store_pull(a.store, "origin", &sum));
	assert_non_null(strstr(buf_str(&sum),
			       "pulled 2 profiles in 2 versions from origin (fast-forward)"));
	assert_true(strncmp(buf_str(&sum), "pulled", 6) == 0);
	buf_reset(&sum);
	assert_int_equal(count_profiles(a.store, V1), 2);
	assert_int_equal(count_profiles(a.store, V2), 1);
	assert_int_equal(store_push(a.store, "nosuchremote", &sum), ERR_NOTFOUND);

	/* Removals on one side survive the merge. */
	assert_int_equal(store_rm(a.store, V2, (struct store_entry[]){{"memory", "m.perf", ""}}, 1),
			 0);
	assert_int_equal(store_add(b.store, V3, &ia, 1, NULL, NULL), 0);
	assert_ok(store_pull(a.store, "origin", &sum));
	buf_reset(&sum);
	assert_ok(store_push(b.store, remote, &sum));
	buf_reset(&sum);
	assert_ok(store_pull(a.store, "origin", &sum));
	assert_non_null(strstr(buf_str(&sum), "(merged)"));
	buf_reset(&sum);
	assert_int_equal(count_profiles(a.store, V2), 0);
	assert_int_equal(count_profiles(a.store, V3), 1);
	assert_ok(store_push(a.store, "origin", &sum));
	buf_reset(&sum);
	assert_ok(store_pull(b.store, remote, &sum));
	assert_int_equal(count_profiles(b.store, V2), 0);

	buf_release(&sum);
	project_free(&a);
	project_free(&b);
	free(remote);
}

/*
 * libgit2 1.5.1 leaks the PCRE2 match data of the regexes it compiles when
 * reading remote configuration (git_remote_lookup leaks the same in a
 * five-line program); not ours to fix, so LeakSanitizer skips it.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libpcre2-8.so\n";
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_list_read),
		cmocka_unit_test(test_compressed_blob),
		cmocka_unit_test(test_duplicates_and_suffixes),
		cmocka_unit_test(test_rm_and_each_version),
		cmocka_unit_test(test_concurrent_writers),
		cmocka_unit_test(test_killed_writer),
		cmocka_unit_test(test_stale_lock_is_cleared),
		cmocka_unit_test(test_dead_owner_lock_is_taken_over),
		cmocka_unit_test(test_push_pull),
	};
	int ret;

	test_isolate_git();
	if (getenv("TEST_FILTER"))
		cmocka_set_test_filter(getenv("TEST_FILTER"));
	/* Held for the whole run: the tests make repositories directly too. */
	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
	git_libgit2_shutdown();
	return ret;
}
