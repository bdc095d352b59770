/*
 * The profile store, reading side: the ledger head, the version trees, and
 * the profile blobs. docs/store.md describes the layout.
 */
#include "vcs/git_lazy.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store/store_internal.h"
#include "util/buf.h"
#include "util/common.h"
#include "vcs/vcs.h"

int store_open(struct vcs *vcs, struct store **out)
{
	struct store *s = xcalloc(1, sizeof(*s));

	s->vcs = vcs;
	s->repo = vcs_store_repo(vcs);
	*out = s;
	return 0;
}

void store_close(struct store *s)
{
	free(s);
}

int store_ledger_head(struct store *s, git_oid *out)
{
	int ret = git_reference_name_to_id(out, s->repo, STORE_LEDGER_REF);

	if (ret == GIT_ENOTFOUND)
		return 1;
	return ret < 0 ? vcs_git_error(ret, "cannot read the profile ledger") : 0;
}

int store_commit_tree(struct store *s, const git_oid *commit, git_tree **out)
{
	git_commit *c = NULL;
	int ret = git_commit_lookup(&c, s->repo, commit);

	if (ret == 0)
		ret = git_commit_tree(out, c);
	git_commit_free(c);
	return ret < 0 ? vcs_git_error(ret, "cannot read the profile ledger") : 0;
}

void store_version_path(const char *version, char path[52])
{
	snprintf(path, 52, "versions/%.2s/%.38s", version, version + 2);
}

static int check_version(const char *version)
{
	if (!version || strlen(version) != 40 || strspn(version, "0123456789abcdef") != 40)
		return err_set(ERR_INVALID, "'%s' is not a full version id",
			       version ? version : "");
	return 0;
}

int store_version_tree(struct store *s, git_tree *root, const char *version, git_tree **out)
{
	git_tree_entry *e = NULL;
	char path[52];
	int ret;

	*out = NULL;
	if (!root)
		return 0;
	store_version_path(version, path);
	ret = git_tree_entry_bypath(&e, root, path);
	if (ret == GIT_ENOTFOUND)
		return 0;
	if (ret == 0 && git_tree_entry_type(e) == GIT_OBJECT_TREE)
		ret = git_tree_lookup(out, s->repo, git_tree_entry_id(e));
	git_tree_entry_free(e);
	return ret < 0 ? vcs_git_error(ret, "cannot read the profile ledger") : 0;
}

/* The ledger's root tree, or NULL when there is no ledger yet. */
static int ledger_tree(struct store *s, git_tree **out)
{
	git_oid head;
	int ret = store_ledger_head(s, &head);

	*out = NULL;
	if (ret != 0)
		return ret < 0 ? ret : 0;
	return store_commit_tree(s, &head, out);
}

static int entry_cmp(const void *a, const void *b)
{
	const struct store_entry *x = a, *y = b;
	int c = strcmp(x->type, y->type);

	return c ? c : strcmp(x->name, y->name);
}

/*
 * Appends the profiles of version tree @vt to @e (strings borrowed from
 * the type trees, which are appended to @keep for the caller to free).
 */
static int collect_version(git_repository *repo, const git_tree *vt, struct store_entry **e,
			   size_t *n, size_t *cap, git_tree ***keep, size_t *nkeep, size_t *kcap)
{
	size_t i, j, nt = git_tree_entrycount(vt);

	for (i = 0; i < nt; i++) {
		const git_tree_entry *te = git_tree_entry_byindex(vt, i);
		git_tree *tt;
		size_t nb;
		int ret;

		if (git_tree_entry_type(te) != GIT_OBJECT_TREE)
			continue;
		ret = git_tree_lookup(&tt, repo, git_tree_entry_id(te));
		if (ret < 0)
			return vcs_git_error(ret, "cannot read the profile ledger");
		*keep = xgrow(*keep, sizeof(**keep), *nkeep + 1, kcap);
		(*keep)[(*nkeep)++] = tt;
		nb = git_tree_entrycount(tt);
		*e = xgrow(*e, sizeof(**e), *n + nb, cap);
		for (j = 0; j < nb; j++) {
			const git_tree_entry *be = git_tree_entry_byindex(tt, j);
			struct store_entry *out = &(*e)[*n];

			if (git_tree_entry_type(be) != GIT_OBJECT_BLOB)
				continue;
			out->type = (char *)git_tree_entry_name(te);
			out->name = (char *)git_tree_entry_name(be);
			git_oid_tostr(out->blob, sizeof(out->blob), git_tree_entry_id(be));
			(*n)++;
		}
	}
	/* Git orders a folder "time" after "time-x"; users count N@i by name. */
	qsort(*e, *n, sizeof(**e), entry_cmp);
	return 0;
}

int store_list_in(struct store *s, git_tree *root, const char *version, struct store_entry **out,
		  size_t *n)
{
	git_tree *vt = NULL, **keep = NULL;
	struct store_entry *e = NULL;
	size_t i, cap = 0, nkeep = 0, kcap = 0;
	int ret;

	*out = NULL;
	*n = 0;
	if ((ret = store_version_tree(s, root, version, &vt)) < 0 || !vt)
		return ret;
	ret = collect_version(s->repo, vt, &e, n, &cap, &keep, &nkeep, &kcap);
	for (i = 0; i < *n; i++) {
		e[i].type = xstrdup(e[i].type);
		e[i].name = xstrdup(e[i].name);
	}
	*out = e;
	if (ret < 0) {
		store_entries_free(e, *n);
		*out = NULL;
		*n = 0;
	}
	for (i = 0; i < nkeep; i++)
		git_tree_free(keep[i]);
	free(keep);
	git_tree_free(vt);
	return ret;
}

int store_list(struct store *s, const char *version, struct store_entry **out, size_t *n)
{
	git_tree *root = NULL;
	int ret;

	*out = NULL;
	*n = 0;
	if ((ret = check_version(version)) < 0 || (ret = ledger_tree(s, &root)) < 0)
		return ret;
	ret = store_list_in(s, root, version, out, n);
	git_tree_free(root);
	return ret;
}

void store_entries_free(struct store_entry *e, size_t n)
{
	size_t i;

	for (i = 0; e && i < n; i++) {
		free(e[i].type);
		free(e[i].name);
	}
	free(e);
}

struct each_state {
	git_repository *repo;
	struct buf *cache; /* the listing, written out once the walk is whole */
	struct store_entry *e;
	size_t cap;
	git_tree **keep;
	size_t kcap;
	int (*fn)(const char *version, const struct store_entry *e, size_t n, void *arg);
	void *arg;
};

/* One fan-out folder versions/ab/: each child is a version's tree. */
static int each_in_fanout(struct each_state *st, const char *prefix, const git_tree *fan)
{
	size_t i, j, nv = git_tree_entrycount(fan);
	char id[41];
	int ret = 0;

	for (i = 0; i < nv && ret == 0; i++) {
		const git_tree_entry *ve = git_tree_entry_byindex(fan, i);
		size_t n = 0, nkeep = 0;
		git_tree *vt;

		if (git_tree_entry_type(ve) != GIT_OBJECT_TREE ||
		    strlen(git_tree_entry_name(ve)) != 38)
			continue;
		snprintf(id, sizeof(id), "%.2s%s", prefix, git_tree_entry_name(ve));
		ret = git_tree_lookup(&vt, st->repo, git_tree_entry_id(ve));
		if (ret < 0)
			return vcs_git_error(ret, "cannot read the profile ledger");
		ret = collect_version(st->repo, vt, &st->e, &n, &st->cap, &st->keep, &nkeep,
				      &st->kcap);
		if (ret == 0 && n) {
			store_cache_add(st->cache, id, st->e, n);
			ret = st->fn(id, st->e, n, st->arg);
		}
		for (j = 0; j < nkeep; j++)
			git_tree_free(st->keep[j]);
		git_tree_free(vt);
	}
	return ret;
}

int store_each_version(struct store *s,
		       int (*fn)(const char *version, const struct store_entry *e, size_t n,
				 void *arg),
		       void *arg)
{
	struct buf cache = BUF_INIT;
	struct each_state st = {s->repo, &cache, NULL, 0, NULL, 0, fn, arg};
	git_tree *root = NULL, *versions = NULL;
	const git_tree_entry *ve;
	git_oid head;
	size_t i, nf;
	bool used;
	int ret = store_ledger_head(s, &head);

	if (ret != 0)
		return ret < 0 ? ret : 0;
	ret = store_cache_each(s, &head, fn, arg, &used);
	if (used || (ret = store_commit_tree(s, &head, &root)) < 0)
		return ret;
	store_cache_start(&cache, &head);
	ve = git_tree_entry_byname(root, "versions");
	if (ve && git_tree_entry_type(ve) == GIT_OBJECT_TREE)
		ret = git_tree_lookup(&versions, s->repo, git_tree_entry_id(ve));
	if (ret < 0)
		ret = vcs_git_error(ret, "cannot read the profile ledger");
	nf = versions ? git_tree_entrycount(versions) : 0;
	for (i = 0; i < nf && ret == 0; i++) {
		const git_tree_entry *fe = git_tree_entry_byindex(versions, i);
		git_tree *fan;

		if (git_tree_entry_type(fe) != GIT_OBJECT_TREE ||
		    strlen(git_tree_entry_name(fe)) != 2)
			continue;
		ret = git_tree_lookup(&fan, s->repo, git_tree_entry_id(fe));
		if (ret < 0) {
			ret = vcs_git_error(ret, "cannot read the profile ledger");
			break;
		}
		ret = each_in_fanout(&st, git_tree_entry_name(fe), fan);
		git_tree_free(fan);
	}
	if (ret == 0)
		store_cache_write(s, &cache);
	buf_release(&cache);
	free(st.e);
	free(st.keep);
	git_tree_free(versions);
	git_tree_free(root);
	return ret;
}

/* A lower-case hex prefix of 4 to 40 digits, or an error naming it. */
static int check_prefix(const char *prefix, char hex[41])
{
	size_t i, len = prefix ? strlen(prefix) : 0;

	if (len < 4 || len > 40 || strspn(prefix, "0123456789abcdefABCDEF") != len)
		return err_set(ERR_INVALID, "'%s' is not a profile id (4 to 40 hex digits)",
			       prefix ? prefix : "");
	for (i = 0; i <= len; i++)
		hex[i] = (char)tolower((unsigned char)prefix[i]);
	return 0;
}

int store_read(struct store *s, const char *blob, struct buf *out)
{
	git_object *obj = NULL;
	git_oid oid;
	char hex[41];
	size_t len;
	int ret = check_prefix(blob, hex);

	if (ret < 0)
		return ret;
	len = strlen(hex);
	git_oid_fromstrn(&oid, hex, len);
	ret = git_object_lookup_prefix(&obj, s->repo, &oid, len, GIT_OBJECT_BLOB);
	if (ret == GIT_ENOTFOUND)
		return err_set(ERR_NOTFOUND, "no profile with id %s in the store", hex);
	if (ret == GIT_EAMBIGUOUS)
		return err_set(ERR_INVALID, "profile id %s is ambiguous; give more digits", hex);
	if (ret < 0)
		return vcs_git_error(ret, "cannot read profile");
	buf_add(out, git_blob_rawcontent((git_blob *)obj),
		(size_t)git_blob_rawsize((git_blob *)obj));
	git_object_free(obj);
	return 0;
}

struct find_state {
	const char *hex;
	size_t len;
	struct store_entry *out;
	char *where; /* the version of the match, or NULL */
	bool found;
	char other[41]; /* a second, different match */
};

static int find_in(const char *version, const struct store_entry *e, size_t n, void *arg)
{
	struct find_state *st = arg;
	size_t i;

	for (i = 0; i < n; i++) {
		if (strncmp(e[i].blob, st->hex, st->len) != 0)
			continue;
		if (!st->found) {
			st->out->type = xstrdup(e[i].type);
			st->out->name = xstrdup(e[i].name);
			memcpy(st->out->blob, e[i].blob, 41);
			if (st->where)
				memcpy(st->where, version, 41);
			st->found = true;
		} else if (strcmp(st->out->blob, e[i].blob) != 0) {
			memcpy(st->other, e[i].blob, 41);
			return 1;
		}
	}
	return 0;
}

int store_find_blob(struct store *s, const char *version, const char *prefix,
		    struct store_entry *out, char *where)
{
	struct find_state st = {0};
	char hex[41];
	int ret = check_prefix(prefix, hex);

	if (ret < 0)
		return ret;
	memset(out, 0, sizeof(*out));
	st.hex = hex;
	st.len = strlen(hex);
	st.out = out;
	st.where = where;
	if (version) {
		struct store_entry *e;
		size_t n;

		ret = store_list(s, version, &e, &n);
		if (ret == 0)
			ret = find_in(version, e, n, &st);
		store_entries_free(e, n);
	} else {
		ret = store_each_version(s, find_in, &st);
	}
	if (ret < 0 || (ret == 0 && st.found))
		return ret;
	if (st.found) {
		ret = err_set(ERR_INVALID,
			      "profile id %s is ambiguous (%.10s, %.10s, ...); give "
			      "more digits",
			      hex, out->blob, st.other);
		free(out->type);
		free(out->name);
		memset(out, 0, sizeof(*out));
		return ret;
	}
	if (version)
		return err_set(ERR_NOTFOUND, "no profile with id %s in version %.7s", hex, version);
	return err_set(ERR_NOTFOUND, "no profile with id %s in the store", hex);
}

long long store_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool store_backoff(unsigned attempt, long long start_ms)
{
	static unsigned seed;
	long long cap = 1LL << (attempt < 7 ? attempt : 7); /* 1 .. 128 ms */
	long long wait;

	if (store_now_ms() - start_ms > 30000)
		return false;
	if (!seed)
		seed = (unsigned)getpid() ^ (unsigned)store_now_ms();
	/* Random, so that processes that collided once do not collide again. */
	wait = cap / 2 + rand_r(&seed) % (cap / 2 + 1);
	usleep((useconds_t)(wait * 1000 + rand_r(&seed) % 500));
	return true;
}
