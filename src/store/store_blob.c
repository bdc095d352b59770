/*
 * Profile blobs into the object database. Git deflates every object; a
 * profile already compressed (the compact form is zstd inside) gains
 * nothing from it, and zlib spends as long failing to shrink 20 MB as it
 * takes to compress text (0.4 s). So such a blob is written as a loose
 * object whose zlib stream keeps the bytes in stored blocks: git and
 * libgit2 read it like any other object, and `git gc` packs it as usual.
 * (libgit2's own writer takes a compression level, but at 0 it writes
 * no zlib stream at all, which git cannot read.)
 */
#include "vcs/git_lazy.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "store/store_internal.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "vcs/vcs.h"

/* "blob LEN\0" and @data as one zlib stream of stored blocks into @fd. */
static int deflate_stored(int fd, const void *data, size_t len)
{
	unsigned char out[65536];
	char head[32];
	z_stream zs;
	int n = snprintf(head, sizeof(head), "blob %zu", len) + 1, ret = Z_OK, err = 0;
	const unsigned char *parts[2] = {(const unsigned char *)head, data};
	size_t sizes[2] = {(size_t)n, len};

	memset(&zs, 0, sizeof(zs));
	if (deflateInit(&zs, Z_NO_COMPRESSION) != Z_OK)
		return -1;
	for (int i = 0; i < 2 && !err; i++) {
		const unsigned char *p = parts[i];
		size_t left = sizes[i];

		do {
			uInt chunk = left > (1u << 30) ? 1u << 30 : (uInt)left;
			int flush = i == 1 && chunk == left ? Z_FINISH : Z_NO_FLUSH;

			zs.next_in = (Bytef *)(uintptr_t)p;
			zs.avail_in = chunk;
			do {
				zs.next_out = out;
				zs.avail_out = sizeof(out);
				ret = deflate(&zs, flush);
				if (ret == Z_STREAM_ERROR ||
				    write_in_full(fd, out, sizeof(out) - zs.avail_out) < 0)
					err = -1;
			} while (!err && zs.avail_out == 0);
			p += chunk;
			left -= chunk;
		} while (!err && left);
	}
	deflateEnd(&zs);
	return err || ret != Z_STREAM_END ? -1 : 0;
}

/* The object's file, written through a temporary one and renamed. */
static int write_loose(const char *objects, const git_oid *id, const void *data, size_t len)
{
	char hex[GIT_OID_HEXSZ + 1];
	char *dir, *path, *tmp;
	int fd, ret = -1, e;

	git_oid_tostr(hex, sizeof(hex), id);
	dir = xasprintf("%s/%.2s", objects, hex);
	path = xasprintf("%s/%s", dir, hex + 2);
	tmp = xasprintf("%s/tmp_obj_XXXXXX", dir);
	if (mkdir(dir, 0777) < 0 && errno != EEXIST)
		goto out;
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0)
		goto out;
	ret = deflate_stored(fd, data, len);
	/* Objects are synced as the repository's others are (store.md). */
	if (ret == 0 && (fchmod(fd, 0444) < 0 || fsync(fd) < 0))
		ret = -1;
	if (close(fd) < 0)
		ret = -1;
	if (ret == 0 && rename(tmp, path) < 0)
		ret = -1;
	e = errno;
	if (ret < 0)
		unlink(tmp);
	else if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		fsync(fd);
		close(fd);
	}
	errno = e;
out:
	if (ret < 0)
		ret = err_set(ERR_IO, "cannot store the profile: %s: %s", path, strerror(errno));
	free(dir);
	free(path);
	free(tmp);
	return ret;
}

static int write_stored(struct store *s, const void *data, size_t len, git_oid *out)
{
	git_odb *odb = NULL;
	git_buf dir = {0};
	int ret = git_odb_hash(out, data, len, GIT_OBJECT_BLOB);

	if (ret == 0)
		ret = git_repository_odb(&odb, s->repo);
	if (ret == 0 && git_odb_exists(odb, out)) {
		git_odb_free(odb);
		return 0;
	}
	if (ret == 0)
		ret = git_repository_item_path(&dir, s->repo, GIT_REPOSITORY_ITEM_OBJECTS);
	if (ret < 0)
		ret = vcs_git_error(ret, "cannot store the profile");
	else
		ret = write_loose(dir.ptr, out, data, len);
	git_buf_dispose(&dir);
	git_odb_free(odb);
	return ret;
}

int store_blob_write(struct store *s, const void *data, size_t len, bool compressed, git_oid *out)
{
	int ret;

	if (compressed)
		return write_stored(s, data, len, out);
	ret = git_blob_create_from_buffer(out, s->repo, data, len);
	return ret < 0 ? vcs_git_error(ret, "cannot store the profile") : 0;
}
