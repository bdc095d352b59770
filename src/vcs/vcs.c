/* Version context: what both backends share (opening, info, walking). */
#include "vcs/git_lazy.h"
#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "vcs/vcs_internal.h"

int vcs_git_error(int code, const char *what)
{
	const git_error *e = git_error_last();
	const char *msg = e && e->message ? e->message : "unknown libgit2 error";
	int ret;

	switch (code) {
	case GIT_ENOTFOUND:
		ret = ERR_NOTFOUND;
		break;
	case GIT_EAMBIGUOUS:
	case GIT_EINVALIDSPEC:
	case GIT_EINVALID:
		ret = ERR_INVALID;
		break;
	case GIT_EEXISTS:
		ret = ERR_EXISTS;
		break;
	case GIT_EMODIFIED:
	case GIT_ELOCKED:
		ret = ERR_CONFLICT;
		break;
	case GIT_EUSER:
		ret = ERR_INTERRUPTED;
		break;
	default:
		ret = ERR_GENERIC;
	}
	return err_set(ret, "%s: %s", what, msg);
}

int vcs_open(const char *root, bool create, struct vcs **out)
{
	struct vcs *v = xcalloc(1, sizeof(*v));
	char *store = xasprintf("%s/.veles/store.git", root);
	bool plain;
	int ret = git_lazy_load();

	if (ret < 0) {
		free(store);
		free(v);
		return ret;
	}
	/* libgit2 counts init/shutdown pairs, so each handle takes one. */
	git_libgit2_init();
	/* Hashing every object read costs a tenth of `veles log`; git does
	 * not do it either (that is `git fsck`'s job). */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	/* A store update that returned must survive a power cut too. */
	git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, 1);
	v->root = xstrdup(root);
	*out = NULL;
	plain = git_repository_open_ext(NULL, store, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) == 0;
	free(store);
	if (!plain && git_repository_open_ext(&v->repo, root, 0, NULL) == 0 &&
	    !git_repository_is_bare(v->repo)) {
		ret = vcs_git_setup(v);
	} else {
		git_repository_free(v->repo);
		v->repo = NULL;
		ret = vcs_plain_open(v, create);
		if (ret == 1)
			ret = err_set(
				ERR_NOTFOUND,
				"not a Veles project: %s is neither in a git work tree nor has "
				".veles/store.git; run `veles init`",
				root);
	}
	if (ret < 0) {
		vcs_close(v);
		return ret;
	}
	*out = v;
	return 0;
}

void vcs_close(struct vcs *v)
{
	if (!v)
		return;
	git_commit_free(v->info);
	git_repository_free(v->repo);
	free(v->root);
	free(v->veles_prefix);
	free(v);
	git_libgit2_shutdown();
}

enum vcs_kind vcs_kind(const struct vcs *v)
{
	return v->kind;
}

const char *vcs_kind_name(const struct vcs *v)
{
	return v->ops->name;
}

const char *vcs_root(const struct vcs *v)
{
	return v->root;
}

git_repository *vcs_store_repo(struct vcs *v)
{
	return v->repo;
}

int vcs_head(struct vcs *v, char id[41])
{
	git_oid oid;
	int ret = v->ops->head(v, &oid);

	if (ret == 0)
		git_oid_tostr(id, 41, &oid);
	return ret;
}

char *vcs_branch(struct vcs *v)
{
	return v->ops->branch ? v->ops->branch(v) : NULL;
}

int vcs_is_dirty(struct vcs *v, bool *dirty)
{
	*dirty = false;
	return v->ops->is_dirty ? v->ops->is_dirty(v, dirty) : 0;
}

static int resolve_oid(struct vcs *v, const char *rev, git_oid *out)
{
	git_object *obj = NULL, *commit = NULL;
	int ret;

	if (!rev || !*rev)
		return err_set(ERR_INVALID, "empty revision");
	ret = v->ops->resolve ? v->ops->resolve(v, rev, out) : 1;
	if (ret <= 0)
		return ret;
	ret = git_revparse_single(&obj, v->repo, rev);
	if (ret == GIT_ENOTFOUND)
		return err_set(ERR_NOTFOUND, "unknown revision '%s'", rev);
	if (ret == GIT_EAMBIGUOUS)
		return err_set(ERR_INVALID, "revision '%s' is ambiguous; give more digits", rev);
	if (ret < 0)
		return vcs_git_error(ret, rev);
	/* Tags (and anything else that points at a commit) name their commit. */
	ret = git_object_peel(&commit, obj, GIT_OBJECT_COMMIT);
	git_object_free(obj);
	if (ret < 0)
		return err_set(ERR_INVALID, "'%s' does not name a version (not a commit)", rev);
	git_oid_cpy(out, git_object_id(commit));
	git_object_free(commit);
	return 0;
}

int vcs_resolve(struct vcs *v, const char *rev, char id[41])
{
	git_oid oid;
	int ret = resolve_oid(v, rev, &oid);

	if (ret == 0)
		git_oid_tostr(id, 41, &oid);
	return ret;
}

void vcs_fill_version(const git_commit *c, struct vcs_version *out)
{
	const git_signature *a = git_commit_author(c);
	unsigned i, np = git_commit_parentcount(c);

	git_oid_tostr(out->id, sizeof(out->id), git_commit_id(c));
	git_oid_tostr(out->short_id, 8, git_commit_id(c));
	out->counter = 0;
	out->author = a->name ? a->name : "";
	out->email = a->email ? a->email : "";
	out->time = a->when.time;
	out->tz_offset = a->when.offset;
	/* git_commit_summary caches inside the commit, hence the cast. */
	out->summary = git_commit_summary((git_commit *)c);
	if (!out->summary)
		out->summary = "";
	out->message = git_commit_message(c) ? git_commit_message(c) : "";
	out->nparents = np;
	for (i = 0; i < np && i < ARRAY_SIZE(out->parents); i++)
		git_oid_tostr(out->parents[i], 41, git_commit_parent_id(c, i));
}

int vcs_version_info(struct vcs *v, const char *id, struct vcs_version *out)
{
	git_commit *c = NULL;
	git_oid oid;
	int ret = resolve_oid(v, id, &oid);

	if (ret < 0)
		return ret;
	ret = git_commit_lookup(&c, v->repo, &oid);
	if (ret < 0)
		return vcs_git_error(ret, "cannot read version");
	git_commit_free(v->info);
	v->info = c;
	vcs_fill_version(c, out);
	if (v->kind == VCS_PLAIN)
		return vcs_plain_counter(v, &oid, &out->counter);
	return 0;
}

/*
 * The walk behind `veles log`, newest commit first as `git log` orders
 * them: a max-heap of parsed commits keyed by committer time, and a set of
 * the ids already queued. Each commit is read and inflated once; libgit2's
 * revwalk followed by git_commit_lookup read every commit twice, which was
 * a third of `veles log` on a long history.
 */
struct walk_queue {
	git_commit **heap;
	size_t n, cap;
	git_oid *seen; /* open addressing; all-zero = empty */
	size_t nseen, seen_cap;
};

static bool walk_heap_less(git_commit *a, git_commit *b)
{
	return git_commit_time(a) < git_commit_time(b);
}

static void walk_heap_push(struct walk_queue *q, git_commit *c)
{
	size_t i;

	q->heap = xgrow(q->heap, sizeof(*q->heap), q->n + 1, &q->cap);
	for (i = q->n++; i > 0 && walk_heap_less(q->heap[(i - 1) / 2], c); i = (i - 1) / 2)
		q->heap[i] = q->heap[(i - 1) / 2];
	q->heap[i] = c;
}

static git_commit *walk_heap_pop(struct walk_queue *q)
{
	git_commit *top = q->heap[0], *last = q->heap[--q->n];
	size_t i = 0;

	for (;;) {
		size_t child = 2 * i + 1;

		if (child >= q->n)
			break;
		if (child + 1 < q->n && walk_heap_less(q->heap[child], q->heap[child + 1]))
			child++;
		if (!walk_heap_less(last, q->heap[child]))
			break;
		q->heap[i] = q->heap[child];
		i = child;
	}
	if (q->n)
		q->heap[i] = last;
	return top;
}

static size_t walk_slot(const git_oid *seen, size_t cap, const git_oid *id)
{
	static const git_oid zero;
	size_t j;

	memcpy(&j, id->id, sizeof(j));
	for (j &= cap - 1; git_oid_cmp(&seen[j], &zero) != 0; j = (j + 1) & (cap - 1))
		if (git_oid_cmp(&seen[j], id) == 0)
			break;
	return j;
}

/* True the first time @id is offered. */
static bool walk_first_sight(struct walk_queue *q, const git_oid *id)
{
	size_t j;

	if ((q->nseen + 1) * 2 > q->seen_cap) {
		size_t cap = q->seen_cap ? q->seen_cap * 2 : 1024, i;
		git_oid *seen = xcalloc(cap, sizeof(*seen));
		static const git_oid zero;

		for (i = 0; i < q->seen_cap; i++)
			if (git_oid_cmp(&q->seen[i], &zero) != 0)
				seen[walk_slot(seen, cap, &q->seen[i])] = q->seen[i];
		free(q->seen);
		q->seen = seen;
		q->seen_cap = cap;
	}
	j = walk_slot(q->seen, q->seen_cap, id);
	if (git_oid_cmp(&q->seen[j], id) == 0)
		return false;
	git_oid_cpy(&q->seen[j], id);
	q->nseen++;
	return true;
}

static int walk_enqueue(struct vcs *v, struct walk_queue *q, const git_oid *id)
{
	git_commit *c;
	int ret;

	if (!walk_first_sight(q, id))
		return 0;
	ret = git_commit_lookup(&c, v->repo, id);
	if (ret < 0)
		return vcs_git_error(ret, "cannot read version");
	walk_heap_push(q, c);
	return 0;
}

/* Marks @hide and every ancestor of it as seen, so a walk never yields
 * them (git's A..B: what B has and A has not). */
static int walk_hide(struct vcs *v, struct walk_queue *q, const char *hide)
{
	git_oid oid;
	int ret = resolve_oid(v, hide, &oid);

	if (ret == 0)
		ret = walk_enqueue(v, q, &oid);
	while (ret == 0 && q->n) {
		git_commit *c = walk_heap_pop(q);
		unsigned np = git_commit_parentcount(c);

		for (unsigned k = 0; k < np && ret == 0; k++)
			ret = walk_enqueue(v, q, git_commit_parent_id(c, k));
		git_commit_free(c);
	}
	return ret;
}

int vcs_walk(struct vcs *v, const char *from, size_t limit,
	     int (*fn)(const struct vcs_version *ver, void *arg), void *arg)
{
	return vcs_walk_range(v, NULL, from, limit, fn, arg);
}

int vcs_walk_range(struct vcs *v, const char *hide, const char *from, size_t limit,
		   int (*fn)(const struct vcs_version *ver, void *arg), void *arg)
{
	struct walk_queue q = {0};
	struct plain_numbers pn = {0};
	struct vcs_version ver;
	size_t seen = 0, i;
	git_oid oid;
	int ret = from ? resolve_oid(v, from, &oid) : v->ops->head(v, &oid);

	if (ret == ERR_NOTFOUND && !from)
		return 0; /* no versions yet: nothing to walk */
	if (ret == 0 && hide)
		ret = walk_hide(v, &q, hide);
	if (ret < 0) {
		for (i = 0; i < q.n; i++)
			git_commit_free(q.heap[i]);
		free(q.heap);
		free(q.seen);
		return ret;
	}
	ret = walk_enqueue(v, &q, &oid);
	while (ret == 0 && q.n && (!limit || seen < limit)) {
		git_commit *c = walk_heap_pop(&q);
		unsigned np = git_commit_parentcount(c), k;

		for (k = 0; k < np && ret == 0; k++)
			ret = walk_enqueue(v, &q, git_commit_parent_id(c, k));
		if (ret == 0) {
			vcs_fill_version(c, &ver);
			if (v->kind == VCS_PLAIN)
				ret = vcs_plain_number(v, &pn, git_commit_id(c), &ver.counter);
			if (ret == 0)
				ret = fn(&ver, arg);
			seen++;
		}
		git_commit_free(c);
	}
	for (i = 0; i < q.n; i++)
		git_commit_free(q.heap[i]);
	free(q.heap);
	free(q.seen);
	vcs_plain_numbers_free(&pn);
	return ret;
}

int vcs_signature(struct vcs *v, git_signature **out)
{
	/* No identity configured (CI, containers) must not stop an add. */
	if (git_signature_default(out, v->repo) == 0)
		return 0;
	if (git_signature_now(out, "Veles", "veles@localhost") == 0)
		return 0;
	return vcs_git_error(-1, "cannot make a signature");
}
