/* Temporary directories with an owner (see tmpdir.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/common.h"
#include "util/fsutil.h"
#include "util/tmpdir.h"

#define OWNER ".owner"

const char *tmpdir_base(void)
{
	const char *t = getenv("TMPDIR");

	return t && *t ? t : "/tmp";
}

int tmpdir_make(const char *what, struct tmpdir *t)
{
	char *path = xasprintf("%s/veles-%s-XXXXXX", tmpdir_base(), what), *owner, *new;
	int fd, e;

	t->path = NULL;
	t->fd = -1;
	if (!mkdtemp(path)) {
		e = errno;
		free(path);
		return err_set(ERR_IO, "cannot make a temporary directory in %s: %s", tmpdir_base(),
			       strerror(e));
	}
	owner = xasprintf("%s/" OWNER, path);
	new = xasprintf("%s/" OWNER "-new", path);
	/* Locked under another name first: a sweep that sees .owner sees
	 * it held, never the moment between its making and its lock. */
	fd = open(new, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0 || rename(new, owner) < 0) {
		e = errno;
		if (fd >= 0)
			close(fd);
		rm_rf(path);
		free(owner);
		free(new);
		free(path);
		return err_set(ERR_IO, "cannot make a temporary directory in %s: %s", tmpdir_base(),
			       strerror(e));
	}
	free(owner);
	free(new);
	t->path = path;
	t->fd = fd;
	return 0;
}

void tmpdir_remove(struct tmpdir *t)
{
	if (!t->path)
		return; /* none made (a zeroed struct's fd is not one) */
	rm_rf(t->path);
	if (t->fd >= 0)
		close(t->fd);
	free(t->path);
	t->path = NULL;
	t->fd = -1;
}

void tmpdir_keep(struct tmpdir *t)
{
	char *owner;

	if (!t->path || t->fd < 0)
		return;
	owner = xasprintf("%s/" OWNER, t->path);
	unlink(owner);
	free(owner);
	close(t->fd);
	free(t->path);
	t->path = NULL;
	t->fd = -1;
}

/* A process between making .owner-new and naming it .owner holds it for
 * microseconds: one this old and free was left by a process killed then. */
#define NEW_OWNER_SECONDS 5

/* 1: @name in @dir is held, 0: it is free, -1: there is none. */
static int lock_state(const char *dir, const char *name, time_t *mtime)
{
	char *path = xasprintf("%s/%s", dir, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), held;
	struct stat st;

	free(path);
	if (fd < 0)
		return -1;
	held = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	if (mtime)
		*mtime = fstat(fd, &st) == 0 ? st.st_mtime : 0;
	close(fd);
	return held;
}

/* Whether @dir is empty and was made over NEW_OWNER_SECONDS ago: a
 * process killed between making it and its owner file left it. */
static bool empty_and_old(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat st;
	bool empty = true;

	if (!d)
		return false;
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	closedir(d);
	return empty && stat(dir, &st) == 0 && time(NULL) - st.st_mtime >= NEW_OWNER_SECONDS;
}

/* 1: owned, 0: its owner is gone, -1: it has none (kept, or not ours). */
static int owner_state(const char *dir)
{
	int state = lock_state(dir, OWNER, NULL);
	time_t made = 0;

	if (state >= 0)
		return state;
	state = lock_state(dir, OWNER "-new", &made);
	if (state == 0 && time(NULL) - made < NEW_OWNER_SECONDS)
		return 1; /* being made */
	if (state < 0 && empty_and_old(dir))
		return 0;
	return state;
}

bool tmpdir_owned(const char *dir)
{
	return owner_state(dir) == 1;
}

bool tmpdir_stranded(const char *dir)
{
	return owner_state(dir) == 0;
}

static bool excepted(const char *what, const char *const *except)
{
	for (; except && *except; except++)
		if (strncmp(what, *except, strlen(*except)) == 0 && what[strlen(*except)] == '-')
			return true;
	return false;
}

size_t tmpdir_sweep(const char *what, const char *const *except)
{
	const char *base = tmpdir_base();
	DIR *d = opendir(base);
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		const char *name = e->d_name, *w = name + strlen("veles-");
		struct stat st;
		char *path;

		if (strncmp(name, "veles-", 6) != 0 ||
		    (what && (strncmp(w, what, strlen(what)) || w[strlen(what)] != '-')))
			continue;
		if (!what && excepted(w, except))
			continue;
		path = xasprintf("%s/%s", base, name);
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid() &&
		    tmpdir_stranded(path) && rm_rf(path) == 0)
			n++;
		free(path);
	}
	closedir(d);
	return n;
}
