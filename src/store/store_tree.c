/*
 * The profile store, writing side: add and rm edit one version's tree,
 * rebuild only the folders on its path, and move the ledger by
 * compare-and-swap, retrying when another process got there first.
 */
#include "vcs/git_lazy.h"
#include <errno.h>
#include <git2/sys/commit.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/store_internal.h"
#include "util/common.h"
#include "vcs/vcs.h"

/* A lock older than this was left by a killed process: a ref update holds
 * it for well under a millisecond. */
#define STALE_LOCK_SECONDS 10

/*
 * Removes refs/veles/ledger.lock when it is stale. Silent on purpose: the
 * library never prints, and the lock holds no data (the ledger is the ref
 * itself, still intact beside it). docs/store.md says so.
 */
static void clear_stale_lock(struct store *s)
{
	char *path = xasprintf("%s%s.lock", git_repository_commondir(s->repo), STORE_LEDGER_REF);
	struct stat st;

	if (stat(path, &st) == 0 && time(NULL) - st.st_mtime > STALE_LOCK_SECONDS)
		unlink(path);
	free(path);
}

int store_ledger_commit(struct store *s, const git_oid *old, const git_oid *other,
			const git_oid *tree, const char *msg, git_oid *out)
{
	const git_oid *parents[2] = {old, other};
	git_signature *sig = NULL;
	git_reference *ref = NULL;
	size_t np = 0;
	int ret;

	if (old)
		np++;
	if (other)
		parents[np++] = other;
	if ((ret = vcs_signature(s->vcs, &sig)) < 0)
		return ret;
	ret = git_commit_create_from_ids(out, s->repo, NULL, sig, sig, NULL, msg, tree, np,
					 parents);
	git_signature_free(sig);
	if (ret < 0)
		return vcs_git_error(ret, "cannot write a ledger commit");
	/* Create-only for the first commit, compare-and-swap after that. */
	ret = git_reference_create_matching(&ref, s->repo, STORE_LEDGER_REF, out, old != NULL, old,
					    msg);
	git_reference_free(ref);
	if (ret == GIT_ELOCKED)
		clear_stale_lock(s);
	if (ret == GIT_EMODIFIED || ret == GIT_ELOCKED || ret == GIT_EEXISTS)
		return err_set(ERR_CONFLICT, "the profile ledger changed while updating it");
	return ret < 0 ? vcs_git_error(ret, "cannot update the profile ledger") : 0;
}

/*
 * Puts @leaf (NULL: removes the entry) at @path[0]/.../@path[depth-1]
 * under @base (NULL: an empty folder), writing each folder on the way;
 * *out is the new @base, *empty true when it ended up with no entries.
 */
static int tree_put(git_repository *repo, const git_tree *base, const char *const *path,
		    size_t depth, const git_oid *leaf, git_oid *out, bool *empty)
{
	git_treebuilder *tb = NULL;
	git_tree *sub = NULL;
	const git_tree_entry *e;
	git_oid child;
	bool child_empty = leaf == NULL;
	int ret = git_treebuilder_new(&tb, repo, base);

	if (ret < 0)
		return ret;
	if (depth > 1) {
		e = base ? git_tree_entry_byname(base, path[0]) : NULL;
		if (e && git_tree_entry_type(e) == GIT_OBJECT_TREE)
			ret = git_tree_lookup(&sub, repo, git_tree_entry_id(e));
		if (ret == 0)
			ret = tree_put(repo, sub, path + 1, depth - 1, leaf, &child, &child_empty);
		git_tree_free(sub);
		leaf = &child;
	}
	if (ret == 0 && child_empty && git_treebuilder_get(tb, path[0]))
		ret = git_treebuilder_remove(tb, path[0]);
	else if (ret == 0 && !child_empty)
		ret = git_treebuilder_insert(NULL, tb, path[0], leaf, GIT_FILEMODE_TREE);
	if (ret == 0) {
		*empty = git_treebuilder_entrycount(tb) == 0;
		ret = git_treebuilder_write(out, tb);
	}
	git_treebuilder_free(tb);
	return ret;
}

/* Writes @vt_new as the tree of @version in the ledger tree @root. */
static int root_with_version(git_repository *repo, const git_tree *root, const char *version,
			     const git_oid *vt_new, git_oid *out)
{
	char fan[3], rest[39];
	const char *path[3] = {"versions", fan, rest};
	bool empty;

	snprintf(fan, sizeof(fan), "%.2s", version);
	snprintf(rest, sizeof(rest), "%s", version + 2);
	return tree_put(repo, root, path, 3, vt_new, out, &empty);
}

/* One type folder being edited inside a version. */
struct type_edit {
	const char *type;
	git_treebuilder *tb;
};

struct version_edit {
	git_repository *repo;
	git_tree *vt; /* the version's tree before, or NULL */
	struct type_edit *types;
	size_t ntypes, cap;
};

static int edit_type(struct version_edit *ve, const char *type, git_treebuilder **out)
{
	const git_tree_entry *e;
	git_tree *old = NULL;
	size_t i;
	int ret = 0;

	for (i = 0; i < ve->ntypes; i++)
		if (strcmp(ve->types[i].type, type) == 0)
			return *out = ve->types[i].tb, 0;
	e = ve->vt ? git_tree_entry_byname(ve->vt, type) : NULL;
	if (e && git_tree_entry_type(e) == GIT_OBJECT_TREE)
		ret = git_tree_lookup(&old, ve->repo, git_tree_entry_id(e));
	if (ret == 0)
		ret = git_treebuilder_new(out, ve->repo, old);
	git_tree_free(old);
	if (ret < 0)
		return ret;
	ve->types = xgrow(ve->types, sizeof(*ve->types), ve->ntypes + 1, &ve->cap);
	ve->types[ve->ntypes].type = type;
	ve->types[ve->ntypes++].tb = *out;
	return 0;
}

/* Writes the edited version tree; *empty when no profile is left. */
static int version_write(struct version_edit *ve, git_oid *out, bool *empty)
{
	git_treebuilder *tb = NULL;
	git_oid id;
	size_t i;
	int ret = git_treebuilder_new(&tb, ve->repo, ve->vt);

	for (i = 0; i < ve->ntypes && ret == 0; i++) {
		if (git_treebuilder_entrycount(ve->types[i].tb) == 0) {
			if (git_treebuilder_get(tb, ve->types[i].type))
				ret = git_treebuilder_remove(tb, ve->types[i].type);
			continue;
		}
		ret = git_treebuilder_write(&id, ve->types[i].tb);
		if (ret == 0)
			ret = git_treebuilder_insert(NULL, tb, ve->types[i].type, &id,
						     GIT_FILEMODE_TREE);
	}
	if (ret == 0) {
		*empty = git_treebuilder_entrycount(tb) == 0;
		ret = git_treebuilder_write(out, tb);
	}
	git_treebuilder_free(tb);
	return ret;
}

static void version_edit_release(struct version_edit *ve)
{
	size_t i;

	for (i = 0; i < ve->ntypes; i++)
		git_treebuilder_free(ve->types[i].tb);
	free(ve->types);
	git_tree_free(ve->vt);
	memset(ve, 0, sizeof(*ve));
}

/* What one attempt at an update does to the version tree. */
typedef int (*edit_fn)(struct version_edit *ve, void *arg, size_t *changed);

struct update {
	const char *version;
	edit_fn edit;
	void *arg;
	bool adding; /* for the commit message */
};

/* One attempt: read the ledger, edit, commit; ERR_CONFLICT to go again. */
static int update_once(struct store *s, const struct update *u)
{
	struct version_edit ve = {s->repo, NULL, NULL, 0, 0};
	git_tree *root = NULL;
	git_oid head, vt_id, root_id, commit;
	size_t changed = 0;
	bool has_head, empty = false;
	char *msg;
	int ret = store_ledger_head(s, &head);

	if (ret < 0)
		return ret;
	has_head = ret == 0;
	if ((has_head && (ret = store_commit_tree(s, &head, &root)) < 0) ||
	    (ret = store_version_tree(s, root, u->version, &ve.vt)) < 0 ||
	    (ret = u->edit(&ve, u->arg, &changed)) < 0 || changed == 0)
		goto out;
	ret = version_write(&ve, &vt_id, &empty);
	if (ret == 0)
		ret = root_with_version(s->repo, root, u->version, empty ? NULL : &vt_id, &root_id);
	if (ret < 0) {
		ret = vcs_git_error(ret, "cannot write the profile index");
		goto out;
	}
	msg = xasprintf("%s %zu profile%s %s %.7s", u->adding ? "add" : "remove", changed,
			changed == 1 ? "" : "s", u->adding ? "to" : "from", u->version);
	ret = store_ledger_commit(s, has_head ? &head : NULL, NULL, &root_id, msg, &commit);
	free(msg);
	if (ret == 0 && has_head) {
		git_tree *new_root = NULL;

		/* Keeps the next `veles log` from re-reading every tree. */
		if (git_tree_lookup(&new_root, s->repo, &root_id) == 0)
			store_cache_advance(s, &head, &commit, new_root, u->version);
		git_tree_free(new_root);
	}
out:
	version_edit_release(&ve);
	git_tree_free(root);
	return ret;
}

static int update_ledger(struct store *s, const struct update *u)
{
	long long start = store_now_ms();
	unsigned attempt = 0;
	int ret;

	while ((ret = update_once(s, u)) == ERR_CONFLICT)
		if (!store_backoff(attempt++, start))
			return err_set(ERR_CONFLICT,
				       "the profile ledger stayed busy for 30 s (is another veles "
				       "stuck holding %s.lock?)",
				       STORE_LEDGER_REF);
	return ret;
}

/* A type or profile name becomes one path component of the ledger tree. */
static int check_component(const char *what, const char *s)
{
	if (!s || !*s || strchr(s, '/') || strcmp(s, ".") == 0 || strcmp(s, "..") == 0 ||
	    strcasecmp(s, ".git") == 0 || strlen(s) > 255)
		return err_set(ERR_INVALID,
			       "'%s' cannot be a profile %s (no '/', '.', '..' or "
			       ".git, at most 255 bytes)",
			       s ? s : "", what);
	return 0;
}

struct has_oid {
	const git_oid *oid;
	bool found;
};

static int match_oid(const git_tree_entry *e, void *arg)
{
	struct has_oid *h = arg;

	if (git_oid_equal(git_tree_entry_id(e), h->oid))
		h->found = true;
	return 0; /* keep every entry: this only looks */
}

/* "prog-time.perf" -> "prog-time-2.perf"; no extension: "name-2". */
static char *suffixed(const char *name, unsigned k)
{
	const char *dot = strrchr(name, '.');

	if (!dot || dot == name)
		return xasprintf("%s-%u", name, k);
	return xasprintf("%.*s-%u%s", (int)(dot - name), name, k, dot);
}

struct add_arg {
	const struct store_item *items;
	const git_oid *oids;
	size_t n;
	bool *added;
};

static int add_edit(struct version_edit *ve, void *arg, size_t *changed)
{
	struct add_arg *a = arg;
	size_t i;
	int ret;

	for (i = 0; i < a->n; i++) {
		struct has_oid h = {&a->oids[i], false};
		char *name = xstrdup(a->items[i].name);
		git_treebuilder *tb;
		unsigned k = 2;

		a->added[i] = false;
		if ((ret = edit_type(ve, a->items[i].type, &tb)) < 0 ||
		    (ret = git_treebuilder_filter(tb, match_oid, &h)) < 0) {
			free(name);
			return vcs_git_error(ret, "cannot read the profile index");
		}
		while (!h.found && git_treebuilder_get(tb, name)) {
			free(name);
			name = suffixed(a->items[i].name, k++);
		}
		ret = h.found ? 0
			      : git_treebuilder_insert(NULL, tb, name, &a->oids[i],
						       GIT_FILEMODE_BLOB);
		free(name);
		if (ret < 0)
			return vcs_git_error(ret, "cannot add the profile to the index");
		a->added[i] = !h.found;
		*changed += !h.found;
	}
	return 0;
}

int store_add(struct store *s, const char *version, const struct store_item *items, size_t n,
	      bool *added, char (*blobs)[41])
{
	struct add_arg a = {items, NULL, n, NULL};
	struct update u = {version, add_edit, &a, true};
	git_oid *oids;
	size_t i;
	int ret = 0;

	if (strlen(version) != 40 || strspn(version, "0123456789abcdef") != 40)
		return err_set(ERR_INVALID, "'%s' is not a full version id", version);
	for (i = 0; i < n && ret == 0; i++)
		if ((ret = check_component("type", items[i].type)) == 0)
			ret = check_component("name", items[i].name);
	if (ret < 0 || n == 0)
		return ret;
	oids = xcalloc(n, sizeof(*oids));
	a.oids = oids;
	a.added = added ? added : xcalloc(n, sizeof(bool));
	/* Blobs first and once: they are the same whichever attempt wins. */
	for (i = 0; i < n && ret == 0; i++) {
		ret = store_blob_write(s, items[i].data, items[i].len, items[i].compressed,
				       &oids[i]);
		if (ret == 0 && blobs)
			git_oid_tostr(blobs[i], 41, &oids[i]);
	}
	if (ret == 0)
		ret = update_ledger(s, &u);
	if (!added)
		free(a.added);
	free(oids);
	return ret;
}

struct rm_arg {
	const struct store_entry *e;
	size_t n;
	const char *version;
};

static int rm_edit(struct version_edit *ve, void *arg, size_t *changed)
{
	struct rm_arg *r = arg;
	git_treebuilder *tb;
	size_t i;
	int ret;

	for (i = 0; i < r->n; i++) {
		if ((ret = edit_type(ve, r->e[i].type, &tb)) < 0)
			return vcs_git_error(ret, "cannot read the profile index");
		if (!git_treebuilder_get(tb, r->e[i].name))
			return err_set(ERR_NOTFOUND, "no profile %s/%s in version %.7s",
				       r->e[i].type, r->e[i].name, r->version);
		if ((ret = git_treebuilder_remove(tb, r->e[i].name)) < 0)
			return vcs_git_error(ret, "cannot remove the profile");
		(*changed)++;
	}
	return 0;
}

int store_rm(struct store *s, const char *version, const struct store_entry *e, size_t n)
{
	struct rm_arg r = {e, n, version};
	struct update u = {version, rm_edit, &r, false};
	size_t i;
	int ret = 0;

	if (strlen(version) != 40 || strspn(version, "0123456789abcdef") != 40)
		return err_set(ERR_INVALID, "'%s' is not a full version id", version);
	for (i = 0; i < n && ret == 0; i++)
		if ((ret = check_component("type", e[i].type)) == 0)
			ret = check_component("name", e[i].name);
	return ret < 0 || n == 0 ? ret : update_ledger(s, &u);
}
