/*
 * Writing many small profiles durably without paying two journal commits
 * for each. A profile is written to a temporary file beside the name it
 * will take; a commit then makes all pending temporaries durable at once
 * (syncfs), moves each into place without replacing anything
 * (RENAME_NOREPLACE, so two processes never overwrite each other's
 * profile) and syncs the directory once. So no profile is ever seen
 * half-written, and a matrix of quick jobs costs two disk flushes per batch
 * instead of two per job, and one file creation per profile.
 *
 * A temporary file (NAME.perf.tmp.run-XXXXXX) stays open and flocked
 * until it is in place, so a process killed before its commit leaves
 * files that nobody holds: the next batch in that directory puts those
 * that hold a whole profile in place and deletes the rest
 * (run_batch_sweep). Temporaries of other writers, which hold no lock,
 * are swept once they are a minute old.
 */
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

#include "profile/profile.h"
#include "run/batch.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

/* Pending profiles appear in jobs/ at most this long after their job. */
#define BATCH_SECONDS 0.5
/* ... or once this many wait (each holds an open file). */
#define BATCH_MAX 256
#define TMP_MARK ".perf.tmp."
#define RUN_MARK TMP_MARK "run-"
/* Another writer's temporary this old is not being written any more. */
#define FOREIGN_TMP_SECONDS 60

struct batch_item {
	char *tmp, *path;
	int fd; /* open and flocked until the file is in place */
};

struct run_batch {
	char *dir;
	struct batch_item *items;
	size_t n, cap;
	double first; /* when the oldest pending item was added */
};

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct run_batch *run_batch_new(const char *dir)
{
	struct run_batch *b = xcalloc(1, sizeof(*b));

	b->dir = xstrdup(dir);
	run_batch_sweep(dir, NULL);
	return b;
}

/* The compact form of @p into @fd. */
static int write_compact(const struct profile *p, int fd, const char *path)
{
	struct buf data = BUF_INIT;
	int ret = profile_encode(p, &data);
	if (ret == 0 && write_in_full(fd, data.data, data.len) < 0)
		ret = err_set(ERR_IO, "cannot write %s: %s", path, strerror(errno));
	buf_release(&data);
	return ret;
}

/* The profile into a new temporary file beside @path, not yet synced;
 * *@fd stays open, flocked. */
static int write_tmp(const struct profile *p, const char *path, char **tmp, int *fd)
{
	int ret;

	*tmp = xasprintf("%s.tmp.run-XXXXXX", path);
	*fd = mkostemp(*tmp, O_CLOEXEC);
	if (*fd < 0) {
		ret = err_set(ERR_IO, "cannot write %s: %s", path, strerror(errno));
		free(*tmp);
		return ret;
	}
	/* Locked before anything is in it: a sweep never takes a half file. */
	ret = flock(*fd, LOCK_EX) < 0 ? err_set(ERR_IO, "cannot lock %s: %s", *tmp, strerror(errno))
				      : write_compact(p, *fd, path);
	if (ret == 0 && fchmod(*fd, 0644) < 0)
		ret = err_set(ERR_IO, "cannot write %s: %s", path, strerror(errno));
	if (ret < 0) {
		unlink(*tmp);
		close(*fd);
		free(*tmp);
	}
	return ret;
}

static bool taken(const struct run_batch *b, const char *path)
{
	for (size_t i = 0; i < b->n; i++)
		if (strcmp(b->items[i].path, path) == 0)
			return true;
	return access(path, F_OK) == 0;
}

/* DIR/NAME.perf, or NAME-2.perf, ... : the first name neither on disk nor
 * pending (as collect_claim_path names them). */
static char *free_name(const struct run_batch *b, const char *name)
{
	for (int n = 1;; n++) {
		char *p = n == 1 ? xasprintf("%s/%s.perf", b->dir, name)
				 : xasprintf("%s/%s-%d.perf", b->dir, name, n);

		if (!taken(b, p))
			return p;
		free(p);
	}
}

int run_batch_add(struct run_batch *b, const char *name, const struct profile *p, char **path)
{
	char *tmp;
	int fd, ret;

	*path = free_name(b, name);
	ret = write_tmp(p, *path, &tmp, &fd);
	if (ret < 0) {
		free(*path);
		*path = NULL;
		return ret;
	}
	if (!b->n)
		b->first = now_seconds();
	b->items = xgrow(b->items, sizeof(*b->items), b->n + 1, &b->cap);
	b->items[b->n++] = (struct batch_item){tmp, xstrdup(*path), fd};
	return 0;
}

bool run_batch_due(const struct run_batch *b)
{
	return b->n && (b->n >= BATCH_MAX || now_seconds() - b->first >= BATCH_SECONDS);
}

/* Moves @tmp to @path unless @path exists (ERR_EXISTS then). */
static int place(const char *tmp, const char *path)
{
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
		return 0;
	/* File systems without RENAME_NOREPLACE: link fails just as surely. */
	if (errno == EINVAL || errno == ENOSYS) {
		if (link(tmp, path) == 0)
			return unlink(tmp), 0;
	}
	if (errno == EEXIST)
		return ERR_EXISTS;
	return err_set(ERR_IO, "cannot write %s: %s", path, strerror(errno));
}

/* Another process took the name since: the next free one. */
static int place_item(struct run_batch *b, struct batch_item *it)
{
	const char *base = strrchr(it->path, '/') + 1;
	char *stem = xstrndup(base, strlen(base) - strlen(".perf"));
	int ret;

	while ((ret = place(it->tmp, it->path)) == ERR_EXISTS) {
		free(it->path);
		it->path = free_name(b, stem);
	}
	free(stem);
	return ret;
}

int run_batch_commit(struct run_batch *b)
{
	int dfd, ret = 0;

	if (!b->n)
		return 0;
	dfd = open(b->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || syncfs(dfd) < 0)
		ret = err_set(ERR_IO, "cannot sync profiles in %s: %s", b->dir, strerror(errno));
	for (size_t i = 0; i < b->n; i++) {
		if (ret == 0)
			ret = place_item(b, &b->items[i]);
		/* What could not be put in place is not a profile: leave nothing. */
		if (ret < 0)
			unlink(b->items[i].tmp);
		close(b->items[i].fd);
		free(b->items[i].tmp);
		free(b->items[i].path);
	}
	if (dfd >= 0) {
		if (ret == 0)
			fsync(dfd);
		close(dfd);
	}
	b->n = 0;
	return ret;
}

/* The profile a dead writer left at @tmp, whole: into its place. */
static bool recover(struct run_batch *b, const char *tmp, const char *name)
{
	struct profile *p = NULL;
	char *stem = xstrndup(name, (size_t)(strstr(name, TMP_MARK) - name));
	struct batch_item it = {xstrdup(tmp), free_name(b, stem), -1};
	bool placed = profile_load(tmp, &p) == 0 && place_item(b, &it) == 0;

	profile_free(p);
	free(it.tmp);
	free(it.path);
	free(stem);
	return placed;
}

/* Whether @name, open as @fd, is stranded: nobody holds it, and it is a
 * batch's or another writer's that is a minute old. */
static bool stranded(int dfd, int fd, const char *name)
{
	struct stat a, b;

	if (flock(fd, LOCK_EX | LOCK_NB) < 0 || fstat(fd, &a) < 0 ||
	    fstatat(dfd, name, &b, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	/* Another sweep may have put it in place meanwhile. */
	if (a.st_ino != b.st_ino || a.st_dev != b.st_dev || !S_ISREG(a.st_mode))
		return false;
	return strstr(name, RUN_MARK) || time(NULL) - a.st_mtime > FOREIGN_TMP_SECONDS;
}

void run_batch_sweep(const char *dir, struct run_sweep *out)
{
	struct run_batch b = {.dir = (char *)dir};
	struct run_sweep none = {0};
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!out)
		out = &none;
	*out = (struct run_sweep){0};
	if (!d)
		return;
	while ((e = readdir(d))) {
		int fd;
		char *path;

		if (!strstr(e->d_name, TMP_MARK) || e->d_name[0] == '.')
			continue;
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		if (stranded(dirfd(d), fd, e->d_name)) {
			if (recover(&b, path, e->d_name))
				out->recovered++;
			else if (unlink(path) == 0)
				out->removed++;
		}
		free(path);
		close(fd);
	}
	closedir(d);
	if (out->recovered) {
		int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
	}
}

void run_batch_free(struct run_batch *b)
{
	if (!b)
		return;
	run_batch_commit(b);
	free(b->items);
	free(b->dir);
	free(b);
}
