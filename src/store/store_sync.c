/*
 * Sharing the store: push and pull the refs under refs/veles/ through a git remote.
 * Push never forces; pull fetches the remote ledger into a temporary ref
 * and fast-forwards or merges (a union of both sides' profiles).
 */
#include "vcs/git_lazy.h"
#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "vcs/vcs.h"

/* Every ref under refs/veles/ is fetched beside ours, under this prefix:
 * the ledger, and a plain directory's version line. */
#define PULL_TMP_PREFIX "refs/veles-remote/"
#define PULL_TMP_REF PULL_TMP_PREFIX "ledger"
#define PULL_TMP_VERSIONS PULL_TMP_PREFIX "versions"

/* @url as messages and the ledger show it: the password of
 * https://user:TOKEN@host/... (how a CI job pushes) as "***". */
static char *shown_remote(const char *url)
{
	const char *scheme = strstr(url, "://"), *auth, *at, *slash, *colon;

	if (!scheme)
		return xstrdup(url);
	auth = scheme + 3;
	at = strchr(auth, '@');
	slash = strchr(auth, '/');
	colon = at && (!slash || at < slash) ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
	if (!colon)
		return xstrdup(url);
	return xasprintf("%.*s:***%s", (int)(colon - url), url, at);
}

/* A configured remote, else a path or URL used as given; @shown names it
 * in errors. */
static int open_remote(struct store *s, const char *name, const char *shown, git_remote **out)
{
	int ret;

	vcs_tls_enable();
	ret = git_remote_lookup(out, s->repo, name);

	if (ret == GIT_ENOTFOUND || ret == GIT_EINVALIDSPEC) {
		/* Without a ':' it is no URL (nor host:path): a directory or nothing. */
		if (!strchr(name, ':') && !path_is_dir(name))
			return err_set(ERR_NOTFOUND,
				       strchr(name, '/') ? "no repository at '%s' (give a remote "
							   "name, a path or a URL)"
							 : "no remote named '%s' (give a remote "
							   "name, a path or a URL)",
				       shown);
		ret = git_remote_create_anonymous(out, s->repo, name);
	}
	return ret < 0 ? vcs_git_error(ret, shown) : 0;
}

static int oid_cmp(const void *a, const void *b)
{
	return git_oid_cmp(a, b);
}

/*
 * Profiles (and the versions they are in) that @new_c has and @old_c
 * (NULL: nothing) has not. By content: a profile that a merge moved to
 * NAME-remote is not new.
 */
static int count_new(struct store *s, const git_oid *old_c, const git_oid *new_c, size_t *profiles,
		     size_t *versions)
{
	git_tree *a = NULL, *b = NULL;
	git_diff *diff = NULL;
	git_oid *gone = NULL;
	const char *last = NULL;
	size_t i, n, ngone = 0;
	int ret = 0;

	*profiles = *versions = 0;
	if (old_c)
		ret = store_commit_tree(s, old_c, &a);
	if (ret == 0)
		ret = store_commit_tree(s, new_c, &b);
	if (ret == 0 && (ret = git_diff_tree_to_tree(&diff, s->repo, a, b, NULL)) < 0)
		ret = vcs_git_error(ret, "cannot compare ledgers");
	n = diff ? git_diff_num_deltas(diff) : 0;
	gone = xcalloc(n ? n : 1, sizeof(*gone));
	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		if (d->status == GIT_DELTA_MODIFIED || d->status == GIT_DELTA_DELETED)
			git_oid_cpy(&gone[ngone++], &d->old_file.id);
	}
	qsort(gone, ngone, sizeof(*gone), oid_cmp);
	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		const char *p = d->new_file.path;

		if ((d->status != GIT_DELTA_ADDED && d->status != GIT_DELTA_MODIFIED) ||
		    bsearch(&d->new_file.id, gone, ngone, sizeof(*gone), oid_cmp))
			continue;
		(*profiles)++;
		/* Deltas come sorted by path, so one version's are together. */
		if (!last || strlen(p) < 51 || strncmp(p, last, 51) != 0)
			(*versions)++;
		last = p;
	}
	free(gone);
	git_diff_free(diff);
	git_tree_free(a);
	git_tree_free(b);
	return ret;
}

struct push_state {
	char *rejected; /* the remote's reason, when it refused */
};

static int on_push_update(const char *refname, const char *status, void *data)
{
	struct push_state *ps = data;

	UNUSED(refname);
	if (status && !ps->rejected)
		ps->rejected = xstrdup(status);
	return 0;
}

/* The remote's ledger before the push; zero when it has none. */
static int remote_ledger(git_remote *r, git_oid *out)
{
	const git_remote_head **heads;
	size_t i, n;
	int ret = git_remote_ls(&heads, &n, r);

	memset(out, 0, sizeof(*out));
	if (ret < 0)
		return vcs_git_error(ret, "cannot list the remote's refs");
	for (i = 0; i < n; i++)
		if (strcmp(heads[i]->name, STORE_LEDGER_REF) == 0)
			git_oid_cpy(out, &heads[i]->oid);
	return 0;
}

static bool has_commit(struct store *s, const git_oid *id)
{
	git_commit *c = NULL;
	bool ok = !git_oid_is_zero(id) && git_commit_lookup(&c, s->repo, id) == 0;

	git_commit_free(c);
	return ok;
}

/* True when the remote already has every local ref under refs/veles/ as it is. */
static bool all_pushed(struct store *s, git_remote *r)
{
	const git_remote_head **heads;
	git_reference_iterator *it = NULL;
	git_reference *ref;
	size_t i, n;
	bool same = true;

	if (git_remote_ls(&heads, &n, r) < 0 ||
	    git_reference_iterator_glob_new(&it, s->repo, "refs/veles/*") < 0)
		return false;
	while (same && git_reference_next(&ref, it) == 0) {
		const git_oid *id = git_reference_target(ref);

		same = false;
		for (i = 0; id && i < n && !same; i++)
			same = strcmp(heads[i]->name, git_reference_name(ref)) == 0 &&
			       git_oid_equal(&heads[i]->oid, id);
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	return same;
}

static void say_counts(struct buf *b, const char *verb, size_t p, size_t v, const char *dir,
		       const char *remote)
{
	buf_addf(b, "%s %zu profile%s in %zu version%s %s %s", verb, p, p == 1 ? "" : "s", v,
		 v == 1 ? "" : "s", dir, remote);
}

/*
 * "refs/veles/X:refs/veles/X" for each local ref under refs/veles/: the
 * effect of the wildcard refspec "refs/veles/(all):...", spelt out because libgit2 does not
 * expand wildcards in push refspecs.
 */
static int push_specs(struct store *s, git_strarray *out)
{
	git_reference_iterator *it = NULL;
	git_reference *ref;
	size_t cap = 0;
	int ret = git_reference_iterator_glob_new(&it, s->repo, "refs/veles/*");

	memset(out, 0, sizeof(*out));
	while (ret == 0 && git_reference_next(&ref, it) == 0) {
		const char *name = git_reference_name(ref);

		out->strings = xgrow(out->strings, sizeof(char *), out->count + 1, &cap);
		out->strings[out->count++] = xasprintf("%s:%s", name, name);
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	return ret < 0 ? vcs_git_error(ret, "cannot list refs/veles/") : 0;
}

static void specs_free(git_strarray *a)
{
	size_t i;

	for (i = 0; i < a->count; i++)
		free(a->strings[i]);
	free(a->strings);
}

int store_push(struct store *s, const char *remote, struct buf *summary)
{
	char *shown = shown_remote(remote);
	git_strarray specs = {NULL, 0};
	struct push_state ps = {NULL};
	git_push_options opts;
	git_remote *r = NULL;
	git_oid local, theirs;
	size_t np = 0, nv = 0;
	int ret = store_ledger_head(s, &local);
	bool empty = ret > 0;

	if (ret < 0) {
		free(shown);
		return ret;
	}
	if ((ret = open_remote(s, remote, shown, &r)) < 0 || (ret = push_specs(s, &specs)) < 0)
		goto out;
	git_push_options_init(&opts, GIT_PUSH_OPTIONS_VERSION);
	opts.callbacks.push_update_reference = on_push_update;
	opts.callbacks.payload = &ps;
	/* Connected even with nothing to send: a remote that is not there is
	 * an error today, not at the first push that has something. */
	ret = git_remote_connect(r, GIT_DIRECTION_PUSH, &opts.callbacks, NULL, NULL);
	if (ret < 0) {
		ret = vcs_git_error(ret, shown);
		goto out;
	}
	if (empty) {
		buf_addf(summary, "nothing to push: no profiles registered yet");
		goto out;
	}
	if ((ret = remote_ledger(r, &theirs)) < 0)
		goto out;
	if (all_pushed(s, r)) {
		buf_addf(summary, "%s is already up to date", shown);
		goto out;
	}
	/* Counted before the upload: afterwards both sides look the same. */
	ret = count_new(s, has_commit(s, &theirs) ? &theirs : NULL, &local, &np, &nv);
	if (ret == 0)
		ret = git_remote_upload(r, &specs, &opts);
	if (ret == GIT_ENONFASTFORWARD || (ret == 0 && ps.rejected)) {
		ret = err_set(ERR_CONFLICT,
			      "remote has profiles you do not; run `veles pull` first");
	} else if (ret < 0) {
		ret = vcs_git_error(ret, "cannot push");
	} else {
		say_counts(summary, "pushed", np, nv, "to", shown);
	}
out:
	if (r)
		git_remote_disconnect(r);
	git_remote_free(r);
	specs_free(&specs);
	free(ps.rejected);
	free(shown);
	return ret;
}

/* One conflicted path of a merge, copied out of the index. */
struct conflict {
	char *path;
	git_oid ours, theirs;
	bool has_ours, has_theirs;
};

/* "versions/ab/cd/time/x.perf" -> "versions/ab/cd/time/x-remote.perf". */
static char *remote_name(const char *path, unsigned k)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(path, '.');
	char tag[32];

	snprintf(tag, sizeof(tag), k > 1 ? "-remote-%u" : "-remote", k);
	if (!dot || (slash && dot <= slash + 1))
		return xasprintf("%s%s", path, tag);
	return xasprintf("%.*s%s%s", (int)(dot - path), path, tag, dot);
}

static int index_put(git_index *idx, const char *path, const git_oid *id)
{
	git_index_entry e;

	memset(&e, 0, sizeof(e));
	e.mode = GIT_FILEMODE_BLOB;
	e.path = path;
	git_oid_cpy(&e.id, id);
	return git_index_add(idx, &e);
}

/* Keeps ours at the path and theirs beside it as NAME-remote. */
static int keep_both(git_index *idx, const struct conflict *c)
{
	char *alt = NULL;
	unsigned k = 1;
	int ret = git_index_conflict_remove(idx, c->path);

	if (ret == 0 && c->has_ours)
		ret = index_put(idx, c->path, &c->ours);
	if (ret < 0 || !c->has_theirs)
		return ret;
	if (!c->has_ours)
		return index_put(idx, c->path, &c->theirs);
	do {
		free(alt);
		alt = remote_name(c->path, k++);
	} while (git_index_get_bypath(idx, alt, 0));
	ret = index_put(idx, alt, &c->theirs);
	free(alt);
	return ret;
}

static int resolve_conflicts(git_index *idx)
{
	git_index_conflict_iterator *it = NULL;
	const git_index_entry *anc, *our, *their;
	struct conflict *c = NULL;
	size_t i, n = 0, cap = 0;
	int ret = git_index_conflict_iterator_new(&it, idx);

	/* Copy first: the iterator does not survive edits to the index. */
	while (ret == 0 && git_index_conflict_next(&anc, &our, &their, it) == 0) {
		c = xgrow(c, sizeof(*c), n + 1, &cap);
		memset(&c[n], 0, sizeof(*c));
		c[n].path = xstrdup(our ? our->path : their ? their->path : anc->path);
		if ((c[n].has_ours = our != NULL))
			git_oid_cpy(&c[n].ours, &our->id);
		if ((c[n].has_theirs = their != NULL))
			git_oid_cpy(&c[n].theirs, &their->id);
		n++;
	}
	git_index_conflict_iterator_free(it);
	for (i = 0; i < n; i++) {
		if (ret == 0)
			ret = keep_both(idx, &c[i]);
		free(c[i].path);
	}
	free(c);
	return ret;
}

/*
 * git_merge_trees would merge the text of a path changed on both sides
 * (only possible after an rm and a re-add under the same name); a profile
 * is never spliced, so such a path keeps both versions, as a conflict.
 */
static int unsplice(git_repository *repo, git_tree *base, git_tree *ours, git_tree *theirs,
		    git_index *idx)
{
	git_diff *diff = NULL;
	size_t i, n;
	int ret = base ? git_diff_tree_to_tree(&diff, repo, base, theirs, NULL) : 0;

	n = diff ? git_diff_num_deltas(diff) : 0;
	for (i = 0; i < n && ret == 0; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		struct conflict c = {(char *)d->new_file.path, {{0}}, d->new_file.id, true, true};
		git_tree_entry *e = NULL;

		if (d->status != GIT_DELTA_MODIFIED ||
		    git_tree_entry_bypath(&e, ours, d->new_file.path) < 0)
			continue;
		git_oid_cpy(&c.ours, git_tree_entry_id(e));
		git_tree_entry_free(e);
		if (git_oid_equal(&c.ours, &d->old_file.id) || git_oid_equal(&c.ours, &c.theirs))
			continue;
		ret = keep_both(idx, &c);
	}
	git_diff_free(diff);
	return ret;
}

/* The tree that holds the profiles of both @ours and @theirs. */
static int merge_tree(struct store *s, const git_oid *ours, const git_oid *theirs, git_oid *out)
{
	git_tree *t_base = NULL, *t_ours = NULL, *t_theirs = NULL;
	git_index *idx = NULL;
	git_merge_options opts;
	git_oid base;
	int ret = git_merge_base(&base, s->repo, ours, theirs);

	git_merge_options_init(&opts, GIT_MERGE_OPTIONS_VERSION);
	opts.flags = 0; /* no rename detection: similar profiles are not renames */
	if (ret == 0)
		ret = store_commit_tree(s, &base, &t_base);
	else if (ret == GIT_ENOTFOUND)
		ret = 0; /* unrelated ledgers: merge against nothing */
	if (ret == 0 && (ret = store_commit_tree(s, ours, &t_ours)) == 0)
		ret = store_commit_tree(s, theirs, &t_theirs);
	if (ret < 0)
		goto out;
	ret = git_merge_trees(&idx, s->repo, t_base, t_ours, t_theirs, &opts);
	if (ret == 0)
		ret = resolve_conflicts(idx);
	if (ret == 0)
		ret = unsplice(s->repo, t_base, t_ours, t_theirs, idx);
	if (ret == 0)
		ret = git_index_write_tree_to(out, idx, s->repo);
	if (ret < 0)
		ret = vcs_git_error(ret, "cannot merge the profile ledgers");
out:
	git_index_free(idx);
	git_tree_free(t_base);
	git_tree_free(t_ours);
	git_tree_free(t_theirs);
	return ret;
}

/* Integrates @theirs into the local ledger; *how says what it took. */
static int integrate(struct store *s, const git_oid *theirs, const char *remote, const char **how,
		     size_t *np, size_t *nv)
{
	git_oid ours, tree, merged;
	bool fresh;
	char *msg;
	int ret = store_ledger_head(s, &ours);

	if (ret < 0)
		return ret;
	fresh = ret == 1;
	if (fresh || git_graph_descendant_of(s->repo, theirs, &ours) == 1) {
		*how = "fast-forward";
		ret = count_new(s, fresh ? NULL : &ours, theirs, np, nv);
		return ret < 0 ? ret
			       : store_ref_move(s, fresh ? NULL : &ours, theirs, "veles pull");
	}
	if (git_oid_equal(&ours, theirs) || git_graph_descendant_of(s->repo, &ours, theirs) == 1) {
		*how = NULL;
		return 0;
	}
	*how = "merged";
	if ((ret = merge_tree(s, &ours, theirs, &tree)) < 0)
		return ret;
	msg = xasprintf("merge profiles from %s", remote);
	ret = store_ledger_commit(s, &ours, theirs, &tree, msg, NULL, &merged);
	free(msg);
	return ret < 0 ? ret : count_new(s, &ours, &merged, np, nv);
}

/*
 * Deletes every ref under PULL_TMP_PREFIX: the fetch copies whatever the
 * remote has under refs/veles/, not only the ledger and the versions. Run
 * after the merge (and before a fetch, for what a killed pull left): until
 * then the fetched ledger is the only local name of the remote's profiles.
 */
static void drop_tmp_refs(struct store *s)
{
	git_reference_iterator *it = NULL;
	git_reference *ref;
	char **names = NULL;
	size_t n = 0, cap = 0;

	/* Names first: deleting while iterating may skip refs. */
	if (git_reference_iterator_glob_new(&it, s->repo, PULL_TMP_PREFIX "*") < 0)
		return;
	while (git_reference_next(&ref, it) == 0) {
		names = xgrow(names, sizeof(*names), n + 1, &cap);
		names[n++] = xstrdup(git_reference_name(ref));
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	for (size_t i = 0; i < n; i++) {
		if (git_reference_lookup(&ref, s->repo, names[i]) == 0) {
			git_reference_delete(ref);
			git_reference_free(ref);
		}
		free(names[i]);
	}
	free(names);
}

static int count_nothing(const char *version, const struct store_entry *e, size_t n, void *arg)
{
	UNUSED(version);
	UNUSED(e);
	UNUSED(n);
	UNUSED(arg);
	return 0;
}

/* store_pull(), with the remote as messages and the ledger show it. */
static int pull(struct store *s, const char *remote, const char *shown, struct buf *summary)
{
	char *spec = "+refs/veles/*:" PULL_TMP_PREFIX "*";
	git_strarray specs = {&spec, 1};
	git_fetch_options opts;
	git_remote *r = NULL;
	const char *how = NULL, *vhow = NULL;
	long long start = store_now_ms();
	unsigned attempt = 0;
	size_t np = 0, nv = 0;
	git_oid theirs;
	int ret = open_remote(s, remote, shown, &r);

	if (ret < 0)
		return ret;
	git_fetch_options_init(&opts, GIT_FETCH_OPTIONS_VERSION);
	opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	opts.update_fetchhead = 0;
	drop_tmp_refs(s); /* left by a pull that was killed */
	ret = git_remote_fetch(r, &specs, &opts, NULL);
	git_remote_free(r);
	if (ret < 0)
		return vcs_git_error(ret, shown);
	/* A plain directory's versions first: the ledger names them. */
	if ((ret = vcs_plain_join(s->vcs, PULL_TMP_VERSIONS, shown, &vhow)) < 0) {
		drop_tmp_refs(s);
		return ret;
	}
	ret = git_reference_name_to_id(&theirs, s->repo, PULL_TMP_REF);
	if (ret == GIT_ENOTFOUND) {
		drop_tmp_refs(s);
		buf_addf(summary, "%s has no profiles yet", shown);
		if (vhow)
			buf_addf(summary, "; versions: %s", vhow);
		return 0;
	}
	if (ret < 0) {
		drop_tmp_refs(s);
		return vcs_git_error(ret, "cannot read the fetched ledger");
	}
	/* A local add may land meanwhile: redo the merge on the new head. */
	while ((ret = integrate(s, &theirs, shown, &how, &np, &nv)) == ERR_CONFLICT &&
	       store_backoff(attempt++, start))
		;
	drop_tmp_refs(s);
	if (ret < 0)
		return ret;
	if (!how && !vhow) {
		buf_addf(summary, "already up to date with %s", shown);
		return 0;
	}
	if (how) {
		say_counts(summary, "pulled", np, nv, "from", shown);
		buf_addf(summary, " (%s)", how);
	} else {
		buf_addf(summary, "pulled no new profiles from %s", shown);
	}
	if (vhow)
		buf_addf(summary, "; versions: %s", vhow);
	/* Walking the new ledger once here rebuilds the listing cache, so
	 * the `veles log` after a pull is as quick as any other. */
	store_each_version(s, count_nothing, NULL);
	err_clear();
	return 0;
}

int store_pull(struct store *s, const char *remote, struct buf *summary)
{
	char *shown = shown_remote(remote);
	int ret = pull(s, remote, shown, summary);

	free(shown);
	return ret;
}
