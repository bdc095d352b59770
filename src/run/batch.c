/*
 * Writing many small profiles durably without paying two journal commits
 * for each. A profile is written to a temporary file beside the name it
 * will take; a commit then makes all pending temporaries durable at once
 * (syncfs), moves each into place without replacing anything
 * (RENAME_NOREPLACE, so two processes never overwrite each other's
 * profile) and syncs the directory once. So no profile is ever seen
 * half-written, and a matrix of quick jobs costs two disk flushes per batch
 * instead of two per job, and one file creation per profile.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "profile/profile.h"
#include "run/batch.h"
#include "util/buf.h"
#include "util/common.h"

/* Pending profiles appear in jobs/ at most this long after their job. */
#define BATCH_SECONDS 0.5

struct batch_item {
	char *tmp, *path;
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
	return b;
}

/* The compact form of @p into @fd. */
static int write_compact(const struct profile *p, int fd, const char *path)
{
	struct buf data = BUF_INIT;
	int ret = profile_encode(p, &data);
	size_t done = 0;

	while (ret == 0 && done < data.len) {
		ssize_t n = write(fd, data.data + done, data.len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			ret = err_set(ERR_IO, "cannot write %s: %s", path, strerror(errno));
		else
			done += (size_t)n;
	}
	buf_release(&data);
	return ret;
}

/* The profile into a new temporary file beside @path, not yet synced. */
static int write_tmp(const struct profile *p, const char *path, char **tmp)
{
	int fd, ret;

	*tmp = xasprintf("%s.tmp.XXXXXX", path);
	fd = mkostemp(*tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = err_set(ERR_IO, "cannot write %s: %s", path, strerror(errno));
		free(*tmp);
		return ret;
	}
	ret = write_compact(p, fd, path);
	if (ret == 0 && fchmod(fd, 0644) < 0)
		ret = err_set(ERR_IO, "cannot write %s: %s", path, strerror(errno));
	if (close(fd) < 0 && ret == 0)
		ret = err_set(ERR_IO, "cannot write %s: %s", path, strerror(errno));
	if (ret < 0) {
		unlink(*tmp);
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
	int ret;

	*path = free_name(b, name);
	ret = write_tmp(p, *path, &tmp);
	if (ret < 0) {
		free(*path);
		*path = NULL;
		return ret;
	}
	if (!b->n)
		b->first = now_seconds();
	b->items = xgrow(b->items, sizeof(*b->items), b->n + 1, &b->cap);
	b->items[b->n++] = (struct batch_item){tmp, xstrdup(*path)};
	return 0;
}

bool run_batch_due(const struct run_batch *b)
{
	return b->n && now_seconds() - b->first >= BATCH_SECONDS;
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

void run_batch_free(struct run_batch *b)
{
	if (!b)
		return;
	run_batch_commit(b);
	free(b->items);
	free(b->dir);
	free(b);
}
