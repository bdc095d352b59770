/*
 * Reading a git work tree's HEAD and proving it clean from git's own files,
 * without libgit2.
 *
 * `veles collect` needs only the id of HEAD (the profile's origin) and
 * whether the work tree has uncommitted changes (a warning). Loading
 * libgit2 for that costs more than everything else collect does around
 * the measured command, and it counts against each run. Both answers are
 * cheap in the usual layout: HEAD names a branch whose ref is a loose file
 * or a line of packed-refs; the HEAD commit, loose or whole in a pack,
 * names its tree; and a clean index records (in its cache-tree extension) the tree
 * it would commit, with each file's stat data as git saw it.
 *
 * Anything else (a plain project, an unborn branch, a commit stored as a
 * delta or in an alternate, an index git would look at more closely) answers "cannot tell", and the
 * caller asks libgit2 (vcs_open) as before. So these functions only ever
 * prove; they never guess.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "vcs/vcs.h"

#define EMPTY_TREE_ID "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

struct gitdirs {
	char *work;   /* the work tree's top directory */
	char *git;    /* this work tree's git directory (HEAD, index) */
	char *common; /* refs and objects (differs in linked worktrees) */
};

static void gitdirs_free(struct gitdirs *d)
{
	free(d->work);
	free(d->git);
	free(d->common);
}

/* The first line of @path without its newline; NULL when unreadable. */
static char *read_line(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	char *ret = NULL;

	if (!f)
		return NULL;
	if (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		ret = xstrdup(line);
	}
	fclose(f);
	return ret;
}

/* @rel as a path: itself when absolute, else under @base. */
static char *path_under(const char *base, const char *rel)
{
	return rel[0] == '/' ? xstrdup(rel) : xasprintf("%s/%s", base, rel);
}

/* Fills @d from @work/.git, a directory or a "gitdir:" file. */
static bool gitdirs_at(const char *work, struct gitdirs *d)
{
	char *dotgit = xasprintf("%s/.git", work);
	char *common_file, *common;

	if (path_is_dir(dotgit)) {
		d->git = dotgit;
	} else {
		char *line = read_line(dotgit);

		free(dotgit);
		if (!line || strncmp(line, "gitdir: ", 8) != 0) {
			free(line);
			return false;
		}
		d->git = path_under(work, line + 8);
		free(line);
	}
	d->work = xstrdup(work);
	common_file = xasprintf("%s/commondir", d->git);
	common = read_line(common_file);
	free(common_file);
	d->common = common ? path_under(d->git, common) : xstrdup(d->git);
	free(common);
	return true;
}

/*
 * The git directories of the work tree holding @root, searched upwards as
 * libgit2 does (not across file systems); false for a plain project.
 */
static bool find_gitdirs(const char *root, struct gitdirs *d)
{
	char *store = xasprintf("%s/.veles/store.git", root);
	bool plain = path_exists(store);
	char *dir;
	struct stat st;
	dev_t dev;
	bool found = false;

	free(store);
	memset(d, 0, sizeof(*d));
	if (plain || stat(root, &st) < 0)
		return false;
	dev = st.st_dev;
	dir = xstrdup(root);
	for (;;) {
		char *slash;

		if (stat(dir, &st) < 0 || st.st_dev != dev)
			break;
		if ((found = gitdirs_at(dir, d)))
			break;
		slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			break;
		*slash = '\0';
	}
	free(dir);
	return found;
}

static bool is_hex_id(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* @line is a 40-digit id and nothing else. */
static bool take_id(const char *line, char id[41])
{
	if (strlen(line) != 40 || !is_hex_id(line, 40))
		return false;
	memcpy(id, line, 41);
	return true;
}

/* @name's id from packed-refs. */
static bool packed_ref(const struct gitdirs *d, const char *name, char id[41])
{
	char *path = xasprintf("%s/packed-refs", d->common);
	FILE *f = fopen(path, "r");
	char line[4096];
	bool found = false;

	free(path);
	while (f && !found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (strlen(line) > 41 && line[40] == ' ' && strcmp(line + 41, name) == 0 &&
		    is_hex_id(line, 40)) {
			memcpy(id, line, 40);
			id[40] = '\0';
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/* Resolves ref @name (HEAD, refs/heads/x) to an id, following up to
 * @depth symbolic refs. */
static bool resolve_ref(const struct gitdirs *d, const char *name, char id[41], int depth)
{
	bool shared = strncmp(name, "refs/", 5) == 0;
	char *path = xasprintf("%s/%s", shared ? d->common : d->git, name);
	char *line = read_line(path);
	bool ok;

	free(path);
	if (line && strncmp(line, "ref: ", 5) == 0)
		ok = depth > 0 && resolve_ref(d, line + 5, id, depth - 1);
	else if (line)
		ok = take_id(line, id);
	else
		ok = shared && packed_ref(d, name, id);
	free(line);
	return ok;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Inflates the start of zlib stream @in (@n bytes) into @out (@cap bytes,
 * NUL-terminated); returns the bytes made. */
static size_t inflate_start(const void *in, size_t n, unsigned char *out, size_t cap)
{
	z_stream z = {0};
	size_t made;

	if (inflateInit(&z) != Z_OK)
		return 0;
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap - 1;
	inflate(&z, Z_SYNC_FLUSH);
	made = cap - 1 - z.avail_out;
	out[made] = '\0';
	inflateEnd(&z);
	return made;
}

/* A commit's text (@n bytes) starts "tree ID\n": the tree's id. */
static bool tree_line(const char *body, size_t n, char tree[41])
{
	if (n < 46 || strncmp(body, "tree ", 5) != 0 || !is_hex_id(body + 5, 40) ||
	    body[45] != '\n')
		return false;
	memcpy(tree, body + 5, 40);
	tree[40] = '\0';
	return true;
}

/* The tree of commit @id, when it is a loose object. */
static bool loose_commit_tree(const struct gitdirs *d, const char *id, char tree[41])
{
	char *path = xasprintf("%s/objects/%.2s/%s", d->common, id, id + 2);
	struct buf raw = {0};
	unsigned char out[128];
	bool ok = false;

	if (path_exists(path) && file_read_all(path, &raw) == 0) {
		size_t n = inflate_start(raw.data, raw.len, out, sizeof(out));
		size_t head = strlen((const char *)out) + 1;

		/* "commit SIZE\0tree ID\n..." */
		ok = strncmp((const char *)out, "commit ", 7) == 0 && head <= n &&
		     tree_line((const char *)out + head, n - head, tree);
	}
	buf_release(&raw);
	free(path);
	return ok;
}

static bool read_at(int fd, void *buf, size_t n, off_t at)
{
	return pread(fd, buf, n, at) == (ssize_t)n;
}

/* Where object @raw (20 bytes) is in the pack of index @fd (version 2). */
static bool idx_find(int fd, const unsigned char *raw, uint64_t *offset)
{
	unsigned char head[8], word[8], sha[20];
	uint32_t lo = 0, hi, count;

	if (!read_at(fd, head, 8, 0) || memcmp(head, "\377tOc", 4) != 0 || be32(head + 4) != 2 ||
	    !read_at(fd, word, 4, 8 + 255 * 4))
		return false;
	count = be32(word);
	if (raw[0] && read_at(fd, word, 4, 8 + (raw[0] - 1) * 4))
		lo = be32(word);
	if (!read_at(fd, word, 4, 8 + raw[0] * 4))
		return false;
	hi = be32(word);
	while (lo < hi) { /* the ids are sorted; the fan-out bounds the search */
		uint32_t mid = lo + (hi - lo) / 2;
		int cmp;

		if (!read_at(fd, sha, 20, 1032 + (off_t)mid * 20))
			return false;
		cmp = memcmp(raw, sha, 20);
		if (cmp == 0) {
			off_t at = 1032 + (off_t)count * 24 + (off_t)mid * 4;

			if (!read_at(fd, word, 4, at))
				return false;
			*offset = be32(word);
			if (!(*offset & 0x80000000u))
				return true;
			at = 1032 + (off_t)count * 28 + (off_t)(*offset & 0x7fffffffu) * 8;
			if (!read_at(fd, word, 8, at))
				return false;
			*offset = (uint64_t)be32(word) << 32 | be32(word + 4);
			return true;
		}
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return false;
}

/* The tree of the commit at @offset of pack @path, unless it is a delta. */
static bool pack_commit_tree(const char *path, uint64_t offset, char tree[41])
{
	unsigned char in[512], out[128];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got = fd < 0 ? -1 : pread(fd, in, sizeof(in), (off_t)offset);
	size_t i = 1, n;

	if (fd >= 0)
		close(fd);
	/* The header: type in bits 4-6 of the first byte (1: commit), then
	 * the size in 7-bit groups while the top bit is set. */
	if (got < 2 || ((in[0] >> 4) & 7) != 1)
		return false;
	while (i < (size_t)got && (in[i - 1] & 0x80))
		i++;
	if (i >= (size_t)got)
		return false;
	n = inflate_start(in + i, (size_t)got - i, out, sizeof(out));
	return tree_line((const char *)out, n, tree);
}

/* The tree of commit @id, when it is a whole object in one of the packs. */
static bool packed_commit_tree(const struct gitdirs *d, const char *id, char tree[41])
{
	char *dir = xasprintf("%s/objects/pack", d->common);
	DIR *dh = opendir(dir);
	struct dirent *e;
	unsigned char raw[20];
	bool ok = false;
	int i;

	for (i = 0; i < 20; i++)
		raw[i] = (unsigned char)strtoul((char[]){id[2 * i], id[2 * i + 1], '\0'}, NULL, 16);
	while (dh && !ok && (e = readdir(dh))) {
		size_t len = strlen(e->d_name);
		char *idx, *pack;
		uint64_t offset;
		int fd;

		if (len < 5 || strcmp(e->d_name + len - 4, ".idx") != 0)
			continue;
		idx = xasprintf("%s/%s", dir, e->d_name);
		pack = xasprintf("%s/%.*s.pack", dir, (int)(len - 4), e->d_name);
		fd = open(idx, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && idx_find(fd, raw, &offset))
			ok = pack_commit_tree(pack, offset, tree);
		if (fd >= 0)
			close(fd);
		free(pack);
		free(idx);
	}
	if (dh)
		closedir(dh);
	free(dir);
	return ok;
}

static bool commit_tree(const struct gitdirs *d, const char *id, char tree[41])
{
	return loose_commit_tree(d, id, tree) || packed_commit_tree(d, id, tree);
}

int vcs_quick_head(const char *root, char id[41])
{
	struct gitdirs d;
	bool ok;

	if (!find_gitdirs(root, &d))
		return 1;
	ok = resolve_ref(&d, "HEAD", id, 4);
	gitdirs_free(&d);
	return ok ? 0 : 1;
}

/* What a clean index says about one file, and what lstat() says now. */
struct index_ctx {
	const struct gitdirs *d;
	const char *skip; /* the work-tree-relative ".veles/" prefix */
	struct timespec index_mtime;
};

static bool same_time(const unsigned char *p, const struct timespec *t)
{
	return be32(p) == (uint32_t)t->tv_sec && be32(p + 4) == (uint32_t)t->tv_nsec;
}

/*
 * True when @e (an index entry, @name its path) certainly matches the work
 * tree: the file's stat data is what git recorded, and the file was not
 * written in the same instant as the index (git's "racy" case, where only
 * the content can tell).
 */
static bool entry_unchanged(const struct index_ctx *c, const unsigned char *e, const char *name)
{
	uint32_t mode = be32(e + 24);
	const struct timespec *im = &c->index_mtime;
	char *path;
	struct stat st;
	bool same;

	if ((mode >> 12) == 016) /* a submodule: status leaves them out too */
		return true;
	if (strncmp(name, c->skip, strlen(c->skip)) == 0)
		return true;
	if (be32(e + 8) > (uint32_t)im->tv_sec ||
	    (be32(e + 8) == (uint32_t)im->tv_sec && be32(e + 12) >= (uint32_t)im->tv_nsec))
		return false;
	path = xasprintf("%s/%s", c->d->work, name);
	same = lstat(path, &st) == 0 && same_time(e, &st.st_ctim) &&
	       same_time(e + 8, &st.st_mtim) && be32(e + 20) == (uint32_t)st.st_ino &&
	       be32(e + 36) == (uint32_t)st.st_size &&
	       (S_ISLNK(st.st_mode) ? mode == 0120000
				    : S_ISREG(st.st_mode) &&
					      mode == ((st.st_mode & 0100) ? 0100755u : 0100644u));
	free(path);
	return same;
}

/*
 * Walks the @n entries from @p; returns where the extensions start, or
 * NULL when an entry is not certainly unchanged or needs a closer look
 * (a conflict, assume-unchanged, skip-worktree, intent-to-add).
 */
static const unsigned char *entries_unchanged(const struct index_ctx *c, const unsigned char *p,
					      const unsigned char *end, uint32_t n)
{
	while (n--) {
		size_t fixed = 62, len;
		unsigned flags;

		if (end - p < 64)
			return NULL;
		flags = (unsigned)p[60] << 8 | p[61];
		if ((flags & 0x8000) || ((flags >> 12) & 3))
			return NULL;
		if (flags & 0x4000) {
			if ((p[62] << 8 | p[63]) & 0x6000)
				return NULL;
			fixed = 64;
		}
		len = strnlen((const char *)p + fixed, (size_t)(end - p) - fixed);
		if (fixed + len >= (size_t)(end - p) ||
		    !entry_unchanged(c, p, (const char *)p + fixed))
			return NULL;
		p += (fixed + len + 8) & ~(size_t)7;
	}
	return p;
}

/* The cache-tree extension's root: the tree the index would commit. */
static bool cache_tree_root(const unsigned char *p, const unsigned char *end, char tree[41])
{
	static const char hex[] = "0123456789abcdef";
	const char *s = (const char *)p;
	char *num_end;
	long count;
	int i;

	/* "" NUL, "COUNT SUBTREES\n", then the id when COUNT is not -1. */
	if (end - p < 2 || p[0] != '\0')
		return false;
	count = strtol(s + 1, &num_end, 10);
	/* strtol stops at the file's NUL at the latest, which may be past
	 * the extension's end. */
	if (count < 0 || num_end >= (const char *)end)
		return false;
	s = memchr(num_end, '\n', (size_t)((const char *)end - num_end));
	if (!s || (const char *)end - (s + 1) < 20)
		return false;
	for (i = 0; i < 20; i++) {
		tree[2 * i] = hex[(unsigned char)s[1 + i] >> 4];
		tree[2 * i + 1] = hex[(unsigned char)s[1 + i] & 15];
	}
	tree[40] = '\0';
	return true;
}

/*
 * The index's tree (from its cache-tree), once every entry is checked;
 * false when the index cannot prove the work tree matches it.
 */
static bool index_tree(const struct index_ctx *c, const struct buf *raw, char tree[41])
{
	const unsigned char *p = (const unsigned char *)raw->data;
	const unsigned char *end = p + raw->len;
	uint32_t version, n;

	if (raw->len < 32 || memcmp(p, "DIRC", 4) != 0)
		return false;
	version = be32(p + 4);
	n = be32(p + 8);
	if (version < 2 || version > 3)
		return false;
	end -= 20; /* the checksum */
	p = entries_unchanged(c, p + 12, end, n);
	if (!p)
		return false;
	if (n == 0) {
		memcpy(tree, EMPTY_TREE_ID, sizeof(EMPTY_TREE_ID));
		return true;
	}
	while (end - p >= 8) {
		uint32_t size = be32(p + 4);

		if ((size_t)(end - p - 8) < size)
			return false;
		if (memcmp(p, "TREE", 4) == 0)
			return cache_tree_root(p + 8, p + 8 + size, tree);
		if (p[0] >= 'a' && p[0] <= 'z') /* one git requires us to understand */
			return false;
		p += 8 + size;
	}
	return false;
}

/* The work-tree-relative path of @root's .veles/, as status sees it. */
static char *veles_prefix(const struct gitdirs *d, const char *root)
{
	char real[PATH_MAX], wreal[PATH_MAX];
	size_t wlen;

	if (!realpath(root, real) || !realpath(d->work, wreal))
		return NULL;
	wlen = strlen(wreal);
	if (strcmp(real, wreal) == 0)
		return xstrdup(".veles/");
	if (strncmp(real, wreal, wlen) == 0 && real[wlen] == '/')
		return xasprintf("%s/.veles/", real + wlen + 1);
	return NULL;
}

/* Proves the index and work tree of @d match commit @head's tree. */
static bool index_matches(const struct gitdirs *d, const char *root, const char *head)
{
	char *path = xasprintf("%s/index", d->git);
	struct index_ctx c = {d, veles_prefix(d, root), {0, 0}};
	struct buf raw = {0};
	char want[41], got[41];
	struct stat st;
	bool ok = false;

	if (c.skip && commit_tree(d, head, want)) {
		if (stat(path, &st) < 0)
			ok = strcmp(want, EMPTY_TREE_ID) == 0; /* no index: nothing tracked */
		else if (file_read_all(path, &raw) == 0) {
			c.index_mtime = st.st_mtim;
			ok = index_tree(&c, &raw, got) && strcmp(want, got) == 0;
		}
	}
	buf_release(&raw);
	free((char *)c.skip);
	free(path);
	return ok;
}

bool vcs_quick_clean(const char *root, const char *head)
{
	struct gitdirs d;
	bool ok;

	if (!find_gitdirs(root, &d))
		return false;
	ok = index_matches(&d, root, head);
	gitdirs_free(&d);
	return ok;
}
