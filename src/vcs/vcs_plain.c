/*
 * The plain backend: a directory outside git. Versions are commits with an
 * empty tree on refs/veles/versions in the bare .veles/store.git, numbered
 * v1, v2, ... by their position on that (linear) line.
 */
#include "vcs/git_lazy.h"
#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "vcs/vcs_internal.h"

static int plain_head(struct vcs *v, git_oid *out)
{
	int ret = git_reference_name_to_id(out, v->repo, VCS_PLAIN_REF);

	if (ret == GIT_ENOTFOUND)
		return err_set(ERR_NOTFOUND, "no versions yet; make one with `veles commit`");
	return ret < 0 ? vcs_git_error(ret, "cannot read the current version") : 0;
}

/* Number of versions from the first one up to @id, first parents only. */
int vcs_plain_counter(struct vcs *v, const git_oid *id, unsigned *out)
{
	git_revwalk *walk = NULL;
	git_oid oid;
	unsigned n = 0;
	int ret;

	if ((ret = git_revwalk_new(&walk, v->repo)) < 0 ||
	    (ret = git_revwalk_simplify_first_parent(walk)) < 0 ||
	    (ret = git_revwalk_push(walk, id)) < 0) {
		git_revwalk_free(walk);
		return vcs_git_error(ret, "cannot count versions");
	}
	while ((ret = git_revwalk_next(&oid, walk)) == 0)
		n++;
	git_revwalk_free(walk);
	if (ret != GIT_ITEROVER)
		return vcs_git_error(ret, "cannot count versions");
	*out = n;
	return 0;
}

static void number_put(struct plain_numbers *pn, const char *hex, unsigned n)
{
	size_t i = strmap_intern(&pn->ids, hex, NULL);

	pn->num = xgrow(pn->num, sizeof(*pn->num), i + 1, &pn->cap);
	pn->num[i] = n;
}

int vcs_plain_number(struct vcs *v, struct plain_numbers *pn, const git_oid *id, unsigned *out)
{
	git_oid *path = NULL, cur = *id;
	size_t n = 0, cap = 0, i;
	unsigned base = 0;
	int ret = 0;

	/* Down the first parents to a version already numbered, or the first. */
	for (;;) {
		char hex[GIT_OID_HEXSZ + 1];
		git_commit *c = NULL;
		size_t k;

		git_oid_tostr(hex, sizeof(hex), &cur);
		if ((k = strmap_get(&pn->ids, hex)) != SIZE_MAX) {
			base = pn->num[k];
			break;
		}
		path = xgrow(path, sizeof(*path), n + 1, &cap);
		path[n++] = cur;
		if ((ret = git_commit_lookup(&c, v->repo, &cur)) < 0) {
			ret = vcs_git_error(ret, "cannot count versions");
			break;
		}
		k = git_commit_parentcount(c);
		if (k)
			cur = *git_commit_parent_id(c, 0);
		git_commit_free(c);
		if (!k)
			break;
	}
	for (i = n; ret == 0 && i-- > 0;) {
		char hex[GIT_OID_HEXSZ + 1];

		git_oid_tostr(hex, sizeof(hex), &path[i]);
		number_put(pn, hex, ++base);
	}
	free(path);
	if (ret == 0) {
		char hex[GIT_OID_HEXSZ + 1];

		*out = pn->num[strmap_get(&pn->ids, git_oid_tostr(hex, sizeof(hex), id))];
	}
	return ret;
}

void vcs_plain_numbers_free(struct plain_numbers *pn)
{
	strmap_free(&pn->ids);
	free(pn->num);
	memset(pn, 0, sizeof(*pn));
}

/* "vN": the N-th version of the current line. */
static int plain_resolve(struct vcs *v, const char *rev, git_oid *out)
{
	unsigned long want;
	unsigned total;
	git_commit *c = NULL, *up = NULL;
	char *end;
	int ret;

	if ((rev[0] != 'v' && rev[0] != 'V') || rev[1] < '1' || rev[1] > '9')
		return 1;
	want = strtoul(rev + 1, &end, 10);
	if (*end)
		return 1;
	if ((ret = plain_head(v, out)) < 0 || (ret = vcs_plain_counter(v, out, &total)) < 0)
		return ret;
	if (want > total)
		return err_set(ERR_NOTFOUND, "no version %s (the latest is v%u)", rev, total);
	if ((ret = git_commit_lookup(&c, v->repo, out)) < 0)
		return vcs_git_error(ret, "cannot read the current version");
	ret = git_commit_nth_gen_ancestor(&up, c, total - (unsigned)want);
	git_commit_free(c);
	if (ret < 0)
		return vcs_git_error(ret, rev);
	git_oid_cpy(out, git_commit_id(up));
	git_commit_free(up);
	return 0;
}

const struct vcs_ops vcs_plain_ops = {
	.name = "plain",
	.head = plain_head,
	.branch = NULL,
	.resolve = plain_resolve,
	.is_dirty = NULL,
};

static int empty_tree(git_repository *repo, git_oid *out)
{
	git_treebuilder *tb = NULL;
	int ret = git_treebuilder_new(&tb, repo, NULL);

	if (ret == 0)
		ret = git_treebuilder_write(out, tb);
	git_treebuilder_free(tb);
	return ret;
}

/* Commits @msg on top of the current version (none: the first one). */
static int plain_commit(struct vcs *v, const char *msg, git_oid *out)
{
	git_signature *sig = NULL;
	git_commit *parent = NULL;
	git_tree *tree = NULL;
	git_reference *ref = NULL;
	git_oid tree_id, head;
	bool has_head;
	int ret, tries;

	if ((ret = vcs_signature(v, &sig)) < 0)
		return ret;
	if ((ret = empty_tree(v->repo, &tree_id)) < 0 ||
	    (ret = git_tree_lookup(&tree, v->repo, &tree_id)) < 0) {
		ret = vcs_git_error(ret, "cannot write a version");
		goto out;
	}
	/* Two `veles commit` at once both land, one after the other. */
	for (tries = 0; tries < 100; tries++) {
		has_head = git_reference_name_to_id(&head, v->repo, VCS_PLAIN_REF) == 0;
		if (has_head && (ret = git_commit_lookup(&parent, v->repo, &head)) < 0)
			break;
		ret = git_commit_create(out, v->repo, NULL, sig, sig, NULL, msg, tree,
					has_head ? 1 : 0, (const git_commit **)&parent);
		git_commit_free(parent);
		parent = NULL;
		if (ret < 0)
			break;
		ret = git_reference_create_matching(&ref, v->repo, VCS_PLAIN_REF, out, has_head,
						    has_head ? &head : NULL, msg);
		git_reference_free(ref);
		if (ret != GIT_EMODIFIED && ret != GIT_EEXISTS && ret != GIT_ELOCKED)
			break;
	}
	if (ret < 0)
		ret = vcs_git_error(ret, "cannot record the version");
out:
	git_tree_free(tree);
	git_signature_free(sig);
	return ret;
}

/* Moves the version line from @old to @to, refused if it moved meanwhile. */
static int plain_move(struct vcs *v, const git_oid *old, const git_oid *to, const char *msg)
{
	git_reference *ref = NULL;
	int ret = git_reference_create_matching(&ref, v->repo, VCS_PLAIN_REF, to, 1, old, msg);

	git_reference_free(ref);
	if (ret == GIT_EMODIFIED || ret == GIT_ELOCKED)
		return err_set(ERR_CONFLICT, "the version line changed while pulling; pull again");
	return ret < 0 ? vcs_git_error(ret, "cannot record the versions") : 0;
}

/* A version with both lines as parents, ours first so that vN still
 * counts along the local line. */
static int plain_merge(struct vcs *v, const git_oid *ours, const git_oid *theirs,
		       const char *remote)
{
	const git_oid *parents[2] = {ours, theirs};
	git_signature *sig = NULL;
	git_oid tree, merged;
	char *msg = xasprintf("merge versions from %s", remote);
	int ret = vcs_signature(v, &sig);

	if (ret == 0 && (ret = empty_tree(v->repo, &tree)) == 0)
		ret = git_commit_create_from_ids(&merged, v->repo, NULL, sig, sig, NULL, msg, &tree,
						 2, parents);
	git_signature_free(sig);
	if (ret < 0)
		ret = vcs_git_error(ret, "cannot write a version");
	else
		ret = plain_move(v, ours, &merged, msg);
	free(msg);
	return ret;
}

int vcs_plain_join(struct vcs *v, const char *ref, const char *remote, const char **how)
{
	git_oid ours, theirs;
	int ret;

	*how = NULL;
	if (v->kind != VCS_PLAIN || git_reference_name_to_id(&theirs, v->repo, ref) < 0)
		return 0;
	if ((ret = git_reference_name_to_id(&ours, v->repo, VCS_PLAIN_REF)) < 0)
		return vcs_git_error(ret, "cannot read the current version");
	if (git_oid_equal(&ours, &theirs) || git_graph_descendant_of(v->repo, &ours, &theirs) == 1)
		return 0;
	if (git_graph_descendant_of(v->repo, &theirs, &ours) == 1) {
		*how = "fast-forward";
		return plain_move(v, &ours, &theirs, "veles pull");
	}
	*how = "merged";
	return plain_merge(v, &ours, &theirs, remote);
}

int vcs_plain_open(struct vcs *v, bool create)
{
	char *path = xasprintf("%s/.veles/store.git", v->root);
	git_reference *head = NULL;
	git_oid first;
	int ret;

	v->kind = VCS_PLAIN;
	v->ops = &vcs_plain_ops;
	ret = git_repository_open_ext(&v->repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);
	if (ret == GIT_ENOTFOUND && !create) {
		free(path);
		return 1;
	}
	if (ret == GIT_ENOTFOUND) {
		ret = git_repository_init(&v->repo, path, 1);
		/* HEAD names the version line, so `git log` in store.git and
		 * revisions such as HEAD~2 work as in any repository. */
		if (ret == 0)
			ret = git_reference_symbolic_create(&head, v->repo, "HEAD", VCS_PLAIN_REF,
							    1, NULL);
		git_reference_free(head);
	}
	free(path);
	if (ret < 0)
		return vcs_git_error(ret, "cannot open .veles/store.git");
	if (create && git_reference_name_to_id(&first, v->repo, VCS_PLAIN_REF) == GIT_ENOTFOUND)
		return plain_commit(v, "initial version", &first);
	return 0;
}

int vcs_new_version(struct vcs *v, const char *msg, char id[41])
{
	git_oid oid;
	int ret;

	if (v->kind != VCS_PLAIN)
		return err_set(ERR_INVALID, "this project is a git repository; its versions are "
					    "git commits");
	if (!msg || !*msg)
		return err_set(ERR_INVALID, "a version needs a message");
	ret = plain_commit(v, msg, &oid);
	if (ret == 0)
		git_oid_tostr(id, 41, &oid);
	return ret;
}
