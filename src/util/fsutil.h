/* File helpers: whole-file reads and crash-safe writes. */
#ifndef UTIL_FSUTIL_H
#define UTIL_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct buf;

/* Reads all of @path into @out (appending). */
int file_read_all(const char *path, struct buf *out);

/*
 * Writes @len bytes to @path so that readers see either the old file or the
 * whole new one: a temporary file beside it, fsync, rename, fsync of the
 * directory. A crash at any point leaves no partial @path behind.
 */
int file_write_atomic(const char *path, const void *data, size_t len);

/* All @len bytes of @data to @fd, through short writes and EINTR: 0, or
 * -1 with errno set. */
int write_in_full(int fd, const void *data, size_t len);
/* Up to @len bytes from @fd, through short reads and EINTR until the end
 * of the file: the bytes read, or -1 with errno set. */
ssize_t read_in_full(int fd, void *data, size_t len);

/* Creates @path and its missing parents (mode 0777 & umask). */
int mkdir_p(const char *path);

bool path_exists(const char *path);
bool path_is_dir(const char *path);

/* Removes a directory tree; used by tests and temporary worktrees. */
int rm_rf(const char *path);

/* The running program's own path (from /proc/self/exe), or NULL. */
char *self_exe_path(void);
/* @rel resolved against the running program's directory, such as
 * "../lib/libveles-memory.so" to find a file installed beside it; NULL when
 * the program's path is unknown. */
char *self_exe_relative(const char *rel);
/* The file this code was loaded from: the program, or the shared library
 * (libveles.so) it is linked into when a front end loaded that; NULL when
 * unknown. Files built or installed beside Veles are found from it. */
char *self_object_path(void);
/* @rel resolved against self_object_path()'s directory. */
char *self_object_relative(const char *rel);

#endif
