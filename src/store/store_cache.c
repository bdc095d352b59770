/*
 * A derived listing of the whole ledger, so that `veles log` reads one
 * file instead of a few thousand trees. It lives in the git directory
 * (veles/ledger-cache), names the ledger commit it was made from, and is
 * used only while the ledger still points there: it can never be stale,
 * only absent, and deleting it is always safe.
 *
 *   "VLC1 " <ledger id> "\n"
 *   per version: <version id> " " <count> "\n"
 *                count x (<blob id> <type> NUL <name> NUL)
 */
#include "vcs/git_lazy.h"
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store_internal.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

#define CACHE_MAGIC "VLC1 "

static char *cache_path(struct store *s)
{
	return xasprintf("%sveles/ledger-cache", git_repository_commondir(s->repo));
}

/* Checks one version record at @p; returns the end, or NULL if broken. */
static const char *check_record(const char *p, const char *end, size_t *count)
{
	char *num_end;
	size_t i;

	if (end - p < 42 || p[40] != ' ')
		return NULL;
	*count = strtoul(p + 41, &num_end, 10);
	if (num_end >= end || *num_end != '\n')
		return NULL;
	p = num_end + 1;
	for (i = 0; i < *count; i++) {
		const char *t, *n;

		if (end - p < 40 || !(t = memchr(p + 40, '\0', (size_t)(end - p - 40))) ||
		    !(n = memchr(t + 1, '\0', (size_t)(end - t - 1))))
			return NULL;
		p = n + 1;
	}
	return p;
}

/* Runs @fn over the cached listing in @c (already validated). */
static int replay(const struct buf *c, struct store_entry **e, size_t *cap,
		  int (*fn)(const char *version, const struct store_entry *e, size_t n, void *arg),
		  void *arg)
{
	const char *p = c->data + strlen(CACHE_MAGIC) + 41, *end = c->data + c->len;
	char id[41];
	size_t i, n;
	int ret = 0;

	while (p < end && ret == 0) {
		memcpy(id, p, 40);
		id[40] = '\0';
		n = strtoul(p + 41, (char **)&p, 10);
		p++;
		*e = xgrow(*e, sizeof(**e), n, cap);
		for (i = 0; i < n; i++) {
			memcpy((*e)[i].blob, p, 40);
			(*e)[i].blob[40] = '\0';
			(*e)[i].type = (char *)p + 40;
			(*e)[i].name = (*e)[i].type + strlen((*e)[i].type) + 1;
			p = (*e)[i].name + strlen((*e)[i].name) + 1;
		}
		ret = fn(id, *e, n, arg);
	}
	return ret;
}

int store_cache_each(struct store *s, const git_oid *head,
		     int (*fn)(const char *version, const struct store_entry *e, size_t n,
			       void *arg),
		     void *arg, bool *used)
{
	struct buf c = BUF_INIT;
	struct store_entry *e = NULL;
	char *path = cache_path(s), want[42];
	const char *p, *end;
	size_t cap = 0, n;
	struct stat st;
	int ret = 0, fd;

	*used = false;
	git_oid_tostr(want, 41, head);
	want[40] = '\n';
	want[41] = '\0';
	/* Mapped, not read: `log` then touches the listing once, in place,
	 * instead of copying a megabyte into fresh pages first. A missing
	 * cache is no error. */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < 46) {
		if (fd >= 0)
			close(fd);
		goto out;
	}
	c.data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (c.data == MAP_FAILED) {
		c.data = NULL;
		goto out;
	}
	c.len = (size_t)st.st_size;
	if (c.len < 46 || memcmp(c.data, CACHE_MAGIC, 5) != 0 || memcmp(c.data + 5, want, 41) != 0)
		goto out;
	/* Validate all before calling back: a torn file must not half-run. */
	for (p = c.data + 46, end = c.data + c.len; p && p < end;)
		p = check_record(p, end, &n);
	if (p == end) {
		*used = true;
		ret = replay(&c, &e, &cap, fn, arg);
	}
out:
	free(e);
	if (c.data)
		munmap(c.data, c.len);
	free(path);
	return ret;
}

void store_cache_start(struct buf *c, const git_oid *head)
{
	char id[41];

	git_oid_tostr(id, sizeof(id), head);
	buf_addf(c, "%s%s\n", CACHE_MAGIC, id);
}

void store_cache_add(struct buf *c, const char *version, const struct store_entry *e, size_t n)
{
	size_t i;

	buf_addf(c, "%s %zu\n", version, n);
	for (i = 0; i < n; i++) {
		buf_add(c, e[i].blob, 40);
		buf_add(c, e[i].type, strlen(e[i].type) + 1);
		buf_add(c, e[i].name, strlen(e[i].name) + 1);
	}
}

void store_cache_write(struct store *s, const struct buf *c)
{
	char *path = cache_path(s), *dir = xasprintf("%sveles", git_repository_commondir(s->repo));

	/* Best effort: without a cache the next reader walks the trees. */
	if (mkdir_p(dir) == 0)
		file_write_atomic(path, c->data, c->len);
	err_clear();
	free(dir);
	free(path);
}

/* Copies the validated records of @c, leaving out @version's. */
static void copy_except(struct buf *out, const struct buf *c, const char *version)
{
	const char *p = c->data + strlen(CACHE_MAGIC) + 41, *end = c->data + c->len;

	while (p < end) {
		size_t n;
		const char *next = check_record(p, end, &n);

		if (!next)
			return;
		if (memcmp(p, version, 40) != 0)
			buf_add(out, p, (size_t)(next - p));
		p = next;
	}
}

void store_cache_advance(struct store *s, const git_oid *old, const git_oid *new_head,
			 git_tree *root, const char *version)
{
	struct buf c = BUF_INIT, out = BUF_INIT;
	struct store_entry *e = NULL;
	char *path = cache_path(s), want[42];
	size_t n = 0;

	git_oid_tostr(want, 41, old);
	want[40] = '\n';
	want[41] = '\0';
	/* Only a cache of exactly the old ledger can be carried forward; a
	 * racing writer's cache fails this and is left to be rebuilt. */
	if (file_read_all(path, &c) < 0 || c.len < 46 || memcmp(c.data, CACHE_MAGIC, 5) != 0 ||
	    memcmp(c.data + 5, want, 41) != 0 || store_list_in(s, root, version, &e, &n) < 0)
		goto out;
	store_cache_start(&out, new_head);
	copy_except(&out, &c, version);
	if (n)
		store_cache_add(&out, version, e, n);
	store_cache_write(s, &out);
out:
	err_clear();
	store_entries_free(e, n);
	buf_release(&c);
	buf_release(&out);
	free(path);
}
