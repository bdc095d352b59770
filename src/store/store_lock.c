/*
 * Moving the ledger ref beside other writers (docs/store.md, Concurrency
 * and crashes): other veles processes, a veles killed in the middle of an
 * update, and git gc, which packs refs, repacks objects and prunes what no
 * ref reaches.
 *
 * libgit2 moves refs/veles/ledger through the lock file
 * refs/veles/ledger.lock, which names no owner: a writer killed while it
 * held it leaves it behind, and every later update fails until someone
 * deletes it. So a writer first takes an flock on veles/ledger.owner in
 * the git directory and writes its pid there, and empties the file once
 * the ref has moved. The kernel drops the flock of a process that dies: a
 * writer that gets the flock and finds a pid in the file knows its owner
 * died mid-update, and that a ledger.lock made then is that owner's.
 *
 * Writers also hold veles/writers shared from their first object to the
 * end: one that finds it free removes the temporary files libgit2 leaves
 * when a writer is killed while it writes an object.
 */
#include "vcs/git_lazy.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/store_internal.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "vcs/vcs.h"

/* A lock older than this, with no veles owner on record, was left by a
 * crash or by another tool: a ref update holds it for milliseconds. */
#define STALE_LOCK_SECONDS 10
/* A lock made this long after a dead owner wrote its pid is not its own. */
#define OWNER_LOCK_WINDOW_NS 2000000000LL

static char *lock_path(struct store *s)
{
	return xasprintf("%s%s.lock", git_repository_commondir(s->repo), STORE_LEDGER_REF);
}

static long long mtime_ns(const struct stat *st)
{
	return (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
}

/* veles/ledger.owner, open and flocked; -1 when it cannot be (a read-only
 * repository: the update then runs as it would without it). */
static int owner_take(struct store *s)
{
	char *dir = xasprintf("%sveles", git_repository_commondir(s->repo));
	char *path = xasprintf("%s/ledger.owner", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0 && errno == ENOENT && mkdir_p(dir) == 0)
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	while (fd >= 0 && flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			close(fd);
			fd = -1;
		}
	}
	free(dir);
	free(path);
	return fd;
}

/*
 * The owner before us died holding the flock, maybe with ledger.lock: a
 * lock made from when it wrote its pid until shortly after is its own, and
 * goes. One made later is someone else's (git pack-refs) and stays.
 */
static void clear_dead_owner_lock(struct store *s, int fd)
{
	struct stat own, lk;
	char pid[32];
	char *path;

	if (pread(fd, pid, sizeof(pid), 0) <= 0 || fstat(fd, &own) < 0)
		return;
	path = lock_path(s);
	if (stat(path, &lk) == 0 && mtime_ns(&lk) >= mtime_ns(&own) - 100000000LL &&
	    mtime_ns(&lk) <= mtime_ns(&own) + OWNER_LOCK_WINDOW_NS)
		unlink(path);
	free(path);
}

static void owner_write(int fd)
{
	char line[32];
	int n = snprintf(line, sizeof(line), "%ld\n", (long)getpid());

	if (ftruncate(fd, 0) < 0 || pwrite(fd, line, (size_t)n, 0) != n)
		return; /* the lock still serialises; only the takeover is lost */
}

/* A lock old enough to be a crash's, when no owner is on record. */
static void clear_stale_lock(struct store *s)
{
	char *path = lock_path(s);
	struct stat st;

	if (stat(path, &st) == 0 && time(NULL) - st.st_mtime > STALE_LOCK_SECONDS)
		unlink(path);
	free(path);
}

/* Removes the files named PREFIX* in @dir. */
static void unlink_prefixed(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
}

/* What writers killed outright leave: libgit2's temporary object files,
 * those of the store's own loose writes (objects/XX/tmp_obj_*, as git
 * names them), a listing cache half written. */
static void sweep_leftovers(struct store *s)
{
	const char *common = git_repository_commondir(s->repo);
	char *dir = xasprintf("%sobjects", common);
	DIR *d = opendir(dir);
	struct dirent *e;

	unlink_prefixed(dir, "tmp_object_git2_");
	while (d && (e = readdir(d))) {
		if (strlen(e->d_name) == 2 && isxdigit((unsigned char)e->d_name[0]) &&
		    isxdigit((unsigned char)e->d_name[1])) {
			char *fan = xasprintf("%s/%s", dir, e->d_name);

			unlink_prefixed(fan, "tmp_obj_");
			free(fan);
		}
	}
	if (d)
		closedir(d);
	free(dir);
	dir = xasprintf("%sveles", common);
	unlink_prefixed(dir, "ledger-cache.tmp.");
	free(dir);
}

int store_writer_enter(struct store *s)
{
	char *dir = xasprintf("%sveles", git_repository_commondir(s->repo));
	char *path = xasprintf("%s/writers", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0 && errno == ENOENT && mkdir_p(dir) == 0)
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	free(dir);
	free(path);
	if (fd < 0)
		return -1;
	/* Nobody else writing: whatever temporary is there is a dead one's. */
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		sweep_leftovers(s);
	while (flock(fd, LOCK_SH) < 0 && errno == EINTR)
		;
	return fd;
}

void store_writer_leave(int fd)
{
	if (fd >= 0)
		close(fd);
}

int store_ref_move(struct store *s, const git_oid *old, const git_oid *new_id, const char *msg)
{
	git_reference *ref = NULL;
	int fd = owner_take(s), ret;

	if (fd >= 0) {
		clear_dead_owner_lock(s, fd);
		owner_write(fd);
	}
	/* Create-only for the first commit, compare-and-swap after that. */
	ret = git_reference_create_matching(&ref, s->repo, STORE_LEDGER_REF, new_id, old != NULL,
					    old, msg);
	git_reference_free(ref);
	if (fd >= 0) {
		/* Emptied before the flock goes: a pid there means a death. A
		 * failure only sends the next writer after a lock not there. */
		int cleared = ftruncate(fd, 0);

		(void)cleared;
		close(fd);
	}
	if (ret == GIT_ELOCKED)
		clear_stale_lock(s);
	if (ret == GIT_EMODIFIED || ret == GIT_ELOCKED || ret == GIT_EEXISTS)
		return err_set(ERR_CONFLICT, "the profile ledger changed while updating it");
	return ret < 0 ? vcs_git_error(ret, "cannot update the profile ledger") : 0;
}

void store_gc_mark(struct store *s, char mark[STORE_GC_MARK])
{
	char *path = xasprintf("%sgc.pid", git_repository_commondir(s->repo));
	char text[64] = "";
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	mark[0] = '\0';
	if (fd >= 0 && fstat(fd, &st) == 0) {
		ssize_t n = read(fd, text, sizeof(text) - 1);

		text[n > 0 ? n : 0] = '\0';
		text[strcspn(text, "\n")] = '\0';
		/* The inode and time too: a pid alone may come back. */
		snprintf(mark, STORE_GC_MARK, "%lu %lld %s", (unsigned long)st.st_ino,
			 mtime_ns(&st), text);
	}
	if (fd >= 0)
		close(fd);
	free(path);
}

/* A --prune date under an hour ago prunes what an update wrote moments
 * ago; "hours", "days", ... (the default is two weeks) do not. */
static bool prunes_recent(const char *when)
{
	static const char *const old[] = {"hour", "day", "week", "month", "year"};

	for (size_t i = 0; i < ARRAY_SIZE(old); i++)
		if (strstr(when, old[i]))
			return false;
	return true;
}

/* The gc's --prune from its command line; 0 when it has none, -1 when
 * its command line cannot be read (another host, gone). */
static int gc_prune_arg(const char *mark, char *out, size_t size)
{
	char host[64] = "", self[64] = "", *path, args[4096];
	long pid = 0;
	ssize_t n = -1;
	int fd, found = 0;

	if (sscanf(mark, "%*s %*s %ld %63s", &pid, host) != 2 || pid <= 0 ||
	    gethostname(self, sizeof(self) - 1) < 0 || strcmp(host, self) != 0)
		return -1;
	path = xasprintf("/proc/%ld/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd >= 0) {
		n = read(fd, args, sizeof(args) - 1);
		close(fd);
	}
	if (n <= 0)
		return -1;
	args[n] = '\0';
	for (const char *a = args; a < args + n; a += strlen(a) + 1) {
		if (strcmp(a, "--no-prune") == 0)
			found = 0;
		else if (strncmp(a, "--prune=", 8) == 0) {
			snprintf(out, size, "%s", a + 8);
			found = 1;
		}
	}
	return found;
}

bool store_gc_prunes_now(struct store *s, const char *mark)
{
	char when[256] = "";
	git_config *cfg = NULL;
	const char *v = NULL;
	int arg = gc_prune_arg(mark, when, sizeof(when));
	bool recent;

	if (arg != 0)
		return arg < 0 || prunes_recent(when);
	if (git_repository_config_snapshot(&cfg, s->repo) < 0)
		return true;
	recent = git_config_get_string(&v, cfg, "gc.pruneexpire") == 0 && v && prunes_recent(v);
	git_config_free(cfg);
	return recent;
}

void store_gc_wait(struct store *s, const char *mark, long long ms)
{
	long long start = store_now_ms();
	char now[STORE_GC_MARK];
	struct timespec tick = {0, 10 * 1000000L};

	for (;;) {
		store_gc_mark(s, now);
		if (strcmp(now, mark) != 0 || store_now_ms() - start > ms)
			return;
		nanosleep(&tick, NULL);
	}
}

/*
 * The object database as it is on disk now. The repository's own keeps
 * the packs it opened, and a repack's deleted ones stay readable through
 * their open files: an object only there looks present to this process
 * and is gone for every other.
 */
static int disk_odb(struct store *s, git_odb **out)
{
	char *dir = xasprintf("%sobjects", git_repository_commondir(s->repo));
	int ret = git_odb_open(out, dir);

	free(dir);
	return ret < 0 ? vcs_git_error(ret, "cannot read the object database") : 0;
}

int store_objects_present(struct store *s, const git_oid *ids, size_t n, bool *all)
{
	git_odb *odb = NULL;
	int ret = disk_odb(s, &odb);

	*all = true;
	for (size_t i = 0; ret == 0 && i < n && *all; i++)
		*all = git_odb_exists(odb, &ids[i]) == 1;
	git_odb_free(odb);
	return ret;
}

int store_objects_restore(struct store *s, const git_oid *ids, size_t n)
{
	git_odb *disk = NULL, *mine = NULL;
	int ret = disk_odb(s, &disk), lost = 0;

	if (ret == 0 && (ret = git_repository_odb(&mine, s->repo)) < 0)
		ret = vcs_git_error(ret, "cannot read the object database");
	for (size_t i = 0; ret == 0 && i < n; i++) {
		git_odb_object *o = NULL;
		git_oid id;

		if (git_odb_exists(disk, &ids[i]) == 1)
			continue;
		/* Still readable here (a deleted pack's open file): copied. */
		if (git_odb_read(&o, mine, &ids[i]) < 0) {
			lost = 1;
			continue;
		}
		ret = git_odb_write(&id, disk, git_odb_object_data(o), git_odb_object_size(o),
				    git_odb_object_type(o));
		git_odb_object_free(o);
		if (ret < 0)
			ret = vcs_git_error(ret, "cannot write an object of the profile ledger");
	}
	git_odb_free(mine);
	git_odb_free(disk);
	return ret < 0 ? ret : lost;
}
