#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

int file_read_all(const char *path, struct buf *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return err_set(errno == ENOENT ? ERR_NOTFOUND : ERR_IO, "cannot open %s: %s", path,
			       strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		buf_grow(out, (size_t)st.st_size);
	for (;;) {
		ssize_t n;

		buf_grow(out, 65536);
		n = read(fd, out->data + out->len, out->cap - out->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			return err_set(ERR_IO, "cannot read %s: %s", path, strerror(e));
		}
		if (n == 0)
			break;
		out->len += (size_t)n;
	}
	out->data[out->len] = '\0';
	close(fd);
	return 0;
}

int write_in_full(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

ssize_t read_in_full(int fd, void *data, size_t len)
{
	char *p = data;
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, p + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static int fsync_dir_of(const char *path)
{
	char *copy = xstrdup(path);
	int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	free(copy);
	if (fd < 0)
		return -1;
	fsync(fd);
	close(fd);
	return 0;
}

int file_write_atomic(const char *path, const void *data, size_t len)
{
	char *tmp = xasprintf("%s.tmp.XXXXXX", path);
	int fd = mkostemp(tmp, O_CLOEXEC);
	int e;

	if (fd < 0) {
		e = errno;
		free(tmp);
		return err_set(ERR_IO, "cannot write %s: %s", path, strerror(e));
	}
	if (write_in_full(fd, data, len) < 0 || fchmod(fd, 0644) < 0 || fsync(fd) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) < 0)
		goto fail;
	free(tmp);
	fsync_dir_of(path);
	return 0;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	return err_set(ERR_IO, "cannot write %s: %s", path, strerror(e));
}

int mkdir_p(const char *path)
{
	char *copy = xstrdup(path);
	char *p;

	for (p = copy + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0777) < 0 && errno != EEXIST) {
			int e = errno;

			err_set(ERR_IO, "cannot create %s: %s", copy, strerror(e));
			free(copy);
			return ERR_IO;
		}
		*p = '/';
	}
	if (mkdir(copy, 0777) < 0 && errno != EEXIST) {
		int e = errno;

		err_set(ERR_IO, "cannot create %s: %s", copy, strerror(e));
		free(copy);
		return ERR_IO;
	}
	free(copy);
	return 0;
}

bool path_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

bool path_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	UNUSED(st);
	UNUSED(ftw);
	if (flag == FTW_DP)
		return rmdir(path) < 0 ? -1 : 0;
	return unlink(path) < 0 ? -1 : 0;
}

int rm_rf(const char *path)
{
	if (!path_exists(path))
		return 0;
	if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
		return err_set(ERR_IO, "cannot remove %s: %s", path, strerror(errno));
	return 0;
}

char *self_exe_path(void)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	return xstrdup(exe);
}

/* @rel against the directory of @file (taken); NULL when @file is. */
static char *relative_to(char *file, const char *rel)
{
	char *slash = file ? strrchr(file, '/') : NULL, *path;

	if (!slash) {
		free(file);
		return NULL;
	}
	*slash = '\0';
	path = xasprintf("%s/%s", file, rel);
	free(file);
	return path;
}

char *self_exe_relative(const char *rel)
{
	return relative_to(self_exe_path(), rel);
}

char *self_object_path(void)
{
	Dl_info info;
	struct link_map *map = NULL;
	char *real;

	/* The main program's map has no name: /proc/self/exe tells. */
	if (!dladdr1((void *)self_object_path, &info, (void **)&map, RTLD_DL_LINKMAP) || !map ||
	    !map->l_name || !map->l_name[0])
		return self_exe_path();
	real = realpath(map->l_name, NULL);
	return real ? real : xstrdup(map->l_name);
}

char *self_object_relative(const char *rel)
{
	return relative_to(self_object_path(), rel);
}
