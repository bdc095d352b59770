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

int store_ledger_object(struct store *s, const git_oid *old, const git_oid *other,
			const git_oid *tree, const char *msg, const git_signature *sig,
			git_oid *out)
{
	const git_oid *parents[2] = {old, other};
	git_signature *now = NULL;
	size_t np = 0;
	int ret;

	if (old)
		np++;
	if (other)
		parents[np++] = other;
	if (!sig && (ret = vcs_signature(s->vcs, &now)) < 0)
		return ret;
	ret = git_commit_create_from_ids(out, s->repo, NULL, sig ? sig : now, sig ? sig : now, NULL,
					 msg, tree, np, parents);
	git_signature_free(now);
	return ret < 0 ? vcs_git_error(ret, "cannot write a ledger commit") : 0;
}

int store_ledger_commit(struct store *s, const git_oid *old, const git_oid *other,
			const git_oid *tree, const char *msg, const git_signature *sig,
			git_oid *out)
{
	int ret = store_ledger_object(s, old, other, tree, msg, sig, out);

	return ret < 0 ? ret : store_ref_move(s, old, out, msg);
}

/* The objects one attempt wrote, to check that they outlived a git gc. */
struct oidv {
	git_oid *ids;
	size_t n, cap;
};

static void oidv_add(struct oidv *v, const git_oid *id)
{
	if (!v)
		return;
	v->ids = xgrow(v->ids, sizeof(*v->ids), v->n + 1, &v->cap);
	git_oid_cpy(&v->ids[v->n++], id);
}

/*
 * Puts @leaf (NULL: removes the entry) at @path[0]/.../@path[depth-1]
 * under @base (NULL: an empty folder), writing each folder on the way;
 * *out is the new @base, *empty true when it ended up with no entries.
 */
static int tree_put(git_repository *repo, const git_tree *base, const char *const *path,
		    size_t depth, const git_oid *leaf, git_oid *out, bool *empty, struct oidv *w)
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
			ret = tree_put(repo, sub, path + 1, depth - 1, leaf, &child, &child_empty,
				       w);
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
	if (ret == 0)
		oidv_add(w, out);
	git_treebuilder_free(tb);
	return ret;
}

/* Writes @vt_new as the tree of @version in the ledger tree @root. */
static int root_with_version(git_repository *repo, const git_tree *root, const char *version,
			     const git_oid *vt_new, git_oid *out, struct oidv *w)
{
	char fan[3], rest[39];
	const char *path[3] = {"versions", fan, rest};
	bool empty;

	snprintf(fan, sizeof(fan), "%.2s", version);
	snprintf(rest, sizeof(rest), "%s", version + 2);
	return tree_put(repo, root, path, 3, vt_new, out, &empty, w);
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
	struct oidv *written;
	bool transient; /* a libgit2 call failed: a git gc beside may be why */
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
	if (ret < 0) {
		ve->transient = true;
		return ret;
	}
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
		if (ret == 0) {
			oidv_add(ve->written, &id);
			ret = git_treebuilder_insert(NULL, tb, ve->types[i].type, &id,
						     GIT_FILEMODE_TREE);
		}
	}
	if (ret == 0) {
		*empty = git_treebuilder_entrycount(tb) == 0;
		ret = git_treebuilder_write(out, tb);
	}
	if (ret == 0)
		oidv_add(ve->written, out);
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
	ve->types = NULL;
	ve->vt = NULL;
	ve->ntypes = ve->cap = 0;
}

/* What one attempt at an update does to the version tree. */
typedef int (*edit_fn)(struct version_edit *ve, void *arg, size_t *changed);

struct update {
	const char *version;
	edit_fn edit;
	void *arg;
	bool adding; /* for the commit message */
	/* Writes the profiles' blobs (again: a git gc may have pruned them
	 * before any tree named them); NULL when there are none. */
	int (*write_blobs)(struct store *s, void *arg, struct oidv *w);
};

/* One attempt's state: the ledger it started from and what it wrote. */
struct attempt {
	git_oid head, commit, root_id;
	bool has_head;
	git_tree *root;
	git_signature *sig;
	size_t changed;
	struct oidv written;
	bool transient; /* failed reading or writing objects, not by conflict */
};

/* The trees and the commit of @u on top of @a's ledger; writing them twice
 * gives the same ids (the same signature, the same parents). */
static int build(struct store *s, const struct update *u, struct attempt *a)
{
	struct version_edit ve = {s->repo, NULL, NULL, 0, 0, &a->written, false};
	git_oid vt_id;
	bool empty = false;
	char *msg;
	int ret = store_version_tree(s, a->root, u->version, &ve.vt);

	a->changed = 0;
	a->transient = ret < 0;
	if (ret == 0 && (ret = u->edit(&ve, u->arg, &a->changed)) < 0)
		a->transient = ve.transient;
	if (ret < 0 || a->changed == 0)
		goto out;
	ret = version_write(&ve, &vt_id, &empty);
	if (ret == 0)
		ret = root_with_version(s->repo, a->root, u->version, empty ? NULL : &vt_id,
					&a->root_id, &a->written);
	if (ret < 0) {
		a->transient = true;
		ret = vcs_git_error(ret, "cannot write the profile index");
		goto out;
	}
	msg = xasprintf("%s %zu profile%s %s %.7s", u->adding ? "add" : "remove", a->changed,
			a->changed == 1 ? "" : "s", u->adding ? "to" : "from", u->version);
	ret = store_ledger_object(s, a->has_head ? &a->head : NULL, NULL, &a->root_id, msg, a->sig,
				  &a->commit);
	free(msg);
	a->transient = ret < 0;
	if (ret == 0)
		oidv_add(&a->written, &a->commit);
out:
	version_edit_release(&ve);
	return ret;
}

/* Writes every object of the attempt again: the same ids, now present. */
static int rewrite(struct store *s, const struct update *u, struct attempt *a)
{
	git_oid commit = a->commit;
	int ret = u->write_blobs ? u->write_blobs(s, u->arg, NULL) : 0;

	a->written.n = 0;
	if (ret == 0)
		ret = build(s, u, a);
	if (ret == 0 && !git_oid_equal(&commit, &a->commit))
		ret = err_set(ERR_GENERIC,
			      "the profile ledger commit came out different on rewrite");
	return ret;
}

/* Attempts after a failure that a git gc beside can cause (a pruned
 * object, a fan-out folder removed under a write), before it is final. */
#define TRANSIENT_TRIES 20

/* Every object of the attempt on disk: copied back from what this
 * process can still read, or made again; again and again, as a gc beside
 * may prune them again (or remove a fan-out folder under the write). The
 * list checked is the first one, kept: a rewrite that failed half way
 * must not leave a shorter list that looks whole. */
static int check_written(struct store *s, const struct update *u, struct attempt *a,
			 const git_oid *blobs, size_t nblobs)
{
	long long start = store_now_ms();
	struct oidv ids = {0};
	int ret = 0;

	for (size_t i = 0; i < a->written.n; i++)
		oidv_add(&ids, &a->written.ids[i]);
	for (unsigned k = 0;; k++) {
		bool all = true, blobs_all = true;

		ret = store_objects_present(s, ids.ids, ids.n, &all);
		if (ret == 0)
			ret = store_objects_present(s, blobs, nblobs, &blobs_all);
		if (ret == 0 && all && blobs_all)
			break;
		if (ret == 0)
			ret = store_objects_restore(s, ids.ids, ids.n);
		if (ret >= 0)
			ret |= store_objects_restore(s, blobs, nblobs);
		if (ret == 1)
			ret = rewrite(s, u, a);
		if (k + 1 >= TRANSIENT_TRIES || !store_backoff(k, start)) {
			if (ret >= 0)
				ret = err_set(ERR_GENERIC, "the profile ledger's objects keep "
							   "disappearing (a git gc --prune=now "
							   "beside?)");
			break;
		}
	}
	free(ids.ids);
	return ret;
}

/*
 * The ledger now names what this attempt wrote. A git gc that read the
 * refs before it moved may still prune those objects as unreachable (with
 * --prune=now, at once): every object is checked, and written again when
 * missing. A gc that prunes so and still runs may prune them again: once
 * it has ended, a last check. A gc started after the ref moved sees them
 * reachable. (A bare `git prune --expire=now` leaves no gc.pid to wait
 * for: docs/store.md.)
 */
static int settle(struct store *s, const struct update *u, struct attempt *a, const git_oid *blobs,
		  size_t nblobs)
{
	char gc[STORE_GC_MARK];
	int ret;

	store_gc_mark(s, gc);
	ret = check_written(s, u, a, blobs, nblobs);
	if (ret < 0 || !*gc || !store_gc_prunes_now(s, gc))
		return ret;
	store_gc_wait(s, gc, 60000);
	return check_written(s, u, a, blobs, nblobs);
}

/* One attempt: read the ledger, edit, commit; ERR_CONFLICT to go again
 * (a->transient: after writing the blobs again). */
static int update_once(struct store *s, const struct update *u, struct attempt *a,
		       const git_oid *blobs, size_t nblobs)
{
	int ret = store_ledger_head(s, &a->head);

	a->transient = ret < 0;
	if (ret < 0)
		return ret;
	a->has_head = ret == 0;
	if (a->has_head && (ret = store_commit_tree(s, &a->head, &a->root)) < 0) {
		a->transient = true;
		return ret;
	}
	if ((ret = build(s, u, a)) < 0 || a->changed == 0)
		return ret;
	ret = store_ref_move(s, a->has_head ? &a->head : NULL, &a->commit,
			     u->adding ? "veles add" : "veles rm");
	/* Not a conflict: the commit was pruned before the ref could name it. */
	a->transient = ret < 0 && ret != ERR_CONFLICT;
	if (ret == 0)
		ret = settle(s, u, a, blobs, nblobs);
	if (ret == 0 && a->has_head) {
		git_tree *new_root = NULL;

		/* Keeps the next `veles log` from re-reading every tree. */
		if (git_tree_lookup(&new_root, s->repo, &a->root_id) == 0)
			store_cache_advance(s, &a->head, &a->commit, new_root, u->version);
		git_tree_free(new_root);
	}
	return ret;
}

static int update_ledger(struct store *s, const struct update *u, const git_oid *blobs,
			 size_t nblobs)
{
	long long start = store_now_ms();
	unsigned attempt = 0, transient = 0;
	struct attempt a = {0};
	int ret = vcs_signature(s->vcs, &a.sig);

	for (bool again = ret == 0; again;) {
		again = false;
		a.written.n = 0;
		ret = update_once(s, u, &a, blobs, nblobs);
		git_tree_free(a.root);
		a.root = NULL;
		if (ret == ERR_CONFLICT)
			again = true;
		else if (ret < 0 && a.transient && ++transient < TRANSIENT_TRIES)
			again = !u->write_blobs || u->write_blobs(s, u->arg, NULL) == 0;
		if (!again)
			break;
		if (!store_backoff(attempt++, start)) {
			ret = err_set(ERR_CONFLICT,
				      "the profile ledger stayed busy for 30 s (is another veles "
				      "stuck holding %s.lock?)",
				      STORE_LEDGER_REF);
			break;
		}
	}
	git_signature_free(a.sig);
	free(a.written.ids);
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
	git_oid *oids;
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
			ve->transient = true;
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
		/* A blob a git gc pruned before this tree named it. */
		ve->transient |= ret < 0;
		if (ret < 0)
			return vcs_git_error(ret, "cannot add the profile to the index");
		a->added[i] = !h.found;
		*changed += !h.found;
	}
	return 0;
}

/* The profiles' blobs; a write that fails (a git gc removed the fan-out
 * folder it was renaming into) is tried again. */
static int add_write_blobs(struct store *s, void *arg, struct oidv *w)
{
	struct add_arg *a = arg;
	long long start = store_now_ms();

	UNUSED(w);
	for (size_t i = 0; i < a->n; i++) {
		int ret;

		for (unsigned k = 0;
		     (ret = store_blob_write(s, a->items[i].data, a->items[i].len,
					     a->items[i].compressed, &a->oids[i])) < 0;
		     k++)
			if (k + 1 >= TRANSIENT_TRIES || !store_backoff(k, start))
				return ret;
	}
	return 0;
}

int store_add(struct store *s, const char *version, const struct store_item *items, size_t n,
	      bool *added, char (*blobs)[41])
{
	struct add_arg a = {items, NULL, n, NULL};
	struct update u = {version, add_edit, &a, true, add_write_blobs};
	git_oid *oids;
	size_t i;
	int ret = 0, writer;

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
	/* Blobs first and once: they are the same whichever attempt wins
	 * (written again only when a git gc may have pruned them). */
	writer = store_writer_enter(s);
	ret = add_write_blobs(s, &a, NULL);
	for (i = 0; i < n && ret == 0 && blobs; i++)
		git_oid_tostr(blobs[i], 41, &oids[i]);
	if (ret == 0)
		ret = update_ledger(s, &u, oids, n);
	store_writer_leave(writer);
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
		/* Not transient: the profile is not there. */
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
	struct update u = {version, rm_edit, &r, false, NULL};
	size_t i;
	int ret = 0, writer;

	if (strlen(version) != 40 || strspn(version, "0123456789abcdef") != 40)
		return err_set(ERR_INVALID, "'%s' is not a full version id", version);
	for (i = 0; i < n && ret == 0; i++)
		if ((ret = check_component("type", e[i].type)) == 0)
			ret = check_component("name", e[i].name);
	if (ret < 0 || n == 0)
		return ret;
	writer = store_writer_enter(s);
	ret = update_ledger(s, &u, NULL, 0);
	store_writer_leave(writer);
	return ret;
}
