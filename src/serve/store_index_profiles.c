/*
 * The store index's profiles: which versions' profiles changed between
 * two ledgers (one tree diff, or a comparison of every version's list when
 * the old ledger is gone), each read again into its rows, points and
 * verdict, and the verdicts of its children, which compare against it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/history.h"
#include "analyze/profile_config.h"
#include "profile/profile.h"
#include "project/project.h"
#include "project/version_profiles.h"
#include "serve/db.h"
#include "serve/store_index_priv.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "vcs/git_lazy.h"
#include "vcs/vcs.h"

struct changed {
	struct strmap set;
	struct ix_run *x;
};

static void mark(struct changed *c, const char *id)
{
	strmap_intern(&c->set, id, NULL);
}

static int commit_tree(git_repository *repo, const char *hex, git_tree **out)
{
	git_commit *c = NULL;
	git_oid id;
	int ret = hex ? git_oid_fromstr(&id, hex)
		      : git_reference_name_to_id(&id, repo, "refs/veles/ledger");

	if (ret == 0)
		ret = git_commit_lookup(&c, repo, &id);
	if (ret == 0)
		ret = git_commit_tree(out, c);
	git_commit_free(c);
	return ret;
}

static void mark_entry(struct changed *c, const char *fan, const char *name)
{
	char id[41];

	if (strlen(fan) == 2 && strlen(name) == 38) {
		snprintf(id, sizeof(id), "%s%s", fan, name);
		mark(c, id);
	}
}

static int tree_diff(struct changed *c, git_repository *repo, const git_tree *ta,
		     const git_tree *tb, int depth, const char *fan);

/* The subtrees @a and @b (either NULL: none) compared. */
static int subtree_diff(struct changed *c, git_repository *repo, const git_oid *a, const git_oid *b,
			int depth, const char *fan)
{
	git_tree *ta = NULL, *tb = NULL;
	int ret = 0;

	if (a)
		ret = git_tree_lookup(&ta, repo, a);
	if (ret == 0 && b)
		ret = git_tree_lookup(&tb, repo, b);
	if (ret == 0)
		ret = tree_diff(c, repo, ta, tb, depth, fan);
	git_tree_free(ta);
	git_tree_free(tb);
	return ret;
}

/* Entry @e of one side against the other side's tree @other (NULL:
 * none): a subtree that differs is looked into, down to the versions. */
static int entry_diff(struct changed *c, git_repository *repo, const git_tree_entry *e,
		      const git_tree *other, bool e_is_a, int depth, const char *fan)
{
	const char *name = git_tree_entry_name(e);
	const git_tree_entry *o = other ? git_tree_entry_byname(other, name) : NULL;
	const git_oid *eid = git_tree_entry_id(e), *oid = o ? git_tree_entry_id(o) : NULL;

	if (oid && git_oid_equal(eid, oid))
		return 0;
	if (!e_is_a && o)
		return 0; /* both sides have it: seen from a's side */
	if (depth == 2) {
		mark_entry(c, fan, name);
		return 0;
	}
	if ((depth == 0 && strcmp(name, "versions") != 0) ||
	    git_tree_entry_type(e) != GIT_OBJECT_TREE ||
	    (o && git_tree_entry_type(o) != GIT_OBJECT_TREE))
		return 0;
	return subtree_diff(c, repo, e_is_a ? eid : oid, e_is_a ? oid : eid, depth + 1,
			    depth == 1 ? name : fan);
}

/*
 * The versions whose trees differ between ledger trees @ta and @tb
 * (either NULL: none), looking only into the subtrees whose ids differ: a
 * change to one version reads a handful of trees, not the ledger's
 * 10,000 (libgit2's tree diff walks every entry of both: 0.1 to 1 s).
 */
static int tree_diff(struct changed *c, git_repository *repo, const git_tree *ta,
		     const git_tree *tb, int depth, const char *fan)
{
	int ret = 0;

	for (size_t i = 0; ret == 0 && ta && i < git_tree_entrycount(ta); i++)
		ret = entry_diff(c, repo, git_tree_entry_byindex(ta, i), tb, true, depth, fan);
	for (size_t i = 0; ret == 0 && tb && i < git_tree_entrycount(tb); i++)
		ret = entry_diff(c, repo, git_tree_entry_byindex(tb, i), ta, false, depth, fan);
	return ret;
}

/* The versions whose profiles differ between ledger @old and now; 1 when
 * the old ledger cannot be read here (compare every version then). */
static int diff_ledgers(struct changed *c, const char *old)
{
	git_repository *repo = vcs_store_repo(c->x->p->vcs);
	git_tree *a = NULL, *b = NULL;
	int ret = 1;

	if (*old && commit_tree(repo, old, &a) == 0 && commit_tree(repo, NULL, &b) == 0)
		ret = tree_diff(c, repo, a, b, 0, "") < 0 ? 1 : 0;
	if (ret)
		err_clear();
	git_tree_free(a);
	git_tree_free(b);
	return ret;
}

/* What a version's list of profiles is, to see whether it changed. */
static void signature(const struct store_entry *e, size_t n, struct buf *out)
{
	for (size_t i = 0; i < n; i++)
		buf_addf(out, "%.12s", e[i].blob);
}

struct sig_check {
	struct changed *c;
	struct buf sig, have;
	int ret;
};

static int take_text(void *arg, const struct db_row *row)
{
	if (row->n && row->v[0].type == DB_TEXT)
		buf_adds(arg, row->v[0].s);
	return 1;
}

static int compare_one(const char *version, const struct store_entry *e, size_t n, void *arg)
{
	struct sig_check *sc = arg;

	buf_reset(&sc->sig);
	buf_reset(&sc->have);
	signature(e, n, &sc->sig);
	sc->ret = db_query(sc->c->x->db, "SELECT sig FROM ix_versions WHERE id = ?",
			   &DB_TEXT(version), 1, take_text, &sc->have);
	if (sc->ret > 0)
		sc->ret = 0; /* take_text stops at the first row */
	if (sc->ret < 0)
		return 1;
	if (strcmp(buf_str(&sc->sig), buf_str(&sc->have)) != 0)
		mark(sc->c, version);
	return 0;
}

static int mark_row(void *arg, const struct db_row *row)
{
	mark(arg, row->v[0].s);
	return 0;
}

/* Every version whose list differs from the index's, and every indexed
 * one with profiles (those the store no longer has come out empty). */
static int compare_all(struct changed *c)
{
	struct sig_check sc = {c, BUF_INIT, BUF_INIT, 0};
	int ret = store_each_version(c->x->p->store, compare_one, &sc);

	if (ret == 0)
		ret = sc.ret;
	if (ret == 0)
		ret = db_query(c->x->db, "SELECT id FROM ix_versions WHERE profiles > 0", NULL, 0,
			       mark_row, c);
	buf_release(&sc.sig);
	buf_release(&sc.have);
	return ret;
}

/* The configuration of a series, as the metrics list describes it. */
static int64_t series_id(struct ix_run *x, const struct profile *p, const char *key,
			 const struct history_series *hs, int *ret)
{
	char *skey = xasprintf("%s\x1f%s", key, hs->location);
	bool added;
	size_t i = strmap_intern(&x->series, skey, &added);

	if (added) {
		size_t npp = 0;
		char **pp = profile_config_postprocessors(p, &npp);
		struct buf names = BUF_INIT;

		for (size_t k = 0; k < npp; k++) {
			buf_addf(&names, "%s%s", k ? ", " : "", pp[k]);
			free(pp[k]);
		}
		free(pp);
		XGROW(x->series_id, i + 1, x->series_cap);
		x->series_id[i] = ++x->max_series;
		struct db_val v[] = {DB_INT(x->series_id[i]),
				     DB_TEXT(skey),
				     DB_TEXT(key),
				     DB_TEXT(hs->title),
				     DB_TEXT(hs->title_full),
				     DB_TEXT(hs->location),
				     DB_TEXT(hs->unit),
				     DB_TEXT(p->type ? p->type : ""),
				     DB_TEXT(p->cmd ? p->cmd : ""),
				     DB_TEXT(p->workload ? p->workload : ""),
				     DB_TEXT(p->collector ? p->collector : ""),
				     DB_TEXT(buf_str(&names))};
		*ret = db_exec(x->db,
			       "INSERT INTO ix_series (id, skey, config_key, config, config_full, "
			       "location, unit, type, cmd, workload, collector, postprocessors) "
			       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			       v, ARRAY_SIZE(v), NULL);
		buf_release(&names);
	}
	free(skey);
	return x->series_id[i];
}

/* The points of profile @i of @vp (the newest of its configuration). */
static int add_points(struct ix_run *x, const char *version, int64_t seq,
		      const struct version_profiles *vp, size_t i)
{
	struct history h = {0};
	int ret;

	history_add_version(&h, version, "", 0, "");
	ret = history_add_profile(&h, 0, vp->p[i], "", NULL, NULL);
	for (size_t k = 0; k < h.ns && ret == 0; k++) {
		const struct history_point *pt = &h.s[k].pts[0];
		int64_t id = series_id(x, vp->p[i], vp->key[i], &h.s[k], &ret);
		struct db_val v[] = {
			DB_INT(id),	 DB_INT(seq),	IX_REAL(pt->median),   IX_REAL(pt->q1),
			IX_REAL(pt->q3), DB_INT(pt->n), DB_TEXT(vp->e[i].blob)};

		if (ret == 0)
			ret = db_exec(x->db,
				      "INSERT INTO ix_points (series, vseq, median, q1, q3, n, "
				      "blob) VALUES (?, ?, ?, ?, ?, ?, ?)",
				      v, ARRAY_SIZE(v), NULL);
		if (ret == 0 && !x->recount)
			ret = db_exec(x->db,
				      "UPDATE ix_series SET points = points + 1 WHERE id = ?",
				      &DB_INT(id), 1, NULL);
	}
	history_free(&h);
	return ret;
}

static bool newest_of_key(const struct version_profiles *vp, size_t i)
{
	return vp->key[i] && version_profiles_find(vp, vp->key[i]) == (ssize_t)i;
}

/* The rows of version @id from its profiles @vp. */
static int write_version(struct ix_run *x, const char *id, int64_t seq,
			 const struct version_profiles *vp)
{
	struct buf sig = BUF_INIT;
	int ret = 0;
	static const char *const clear[] = {
		/* Each series counts its points, for the metrics list. */
		"UPDATE ix_series SET points = points - 1 WHERE id IN (SELECT series FROM "
		"ix_points WHERE vseq = ?)",
		"DELETE FROM ix_points WHERE vseq = ?",
	};

	for (size_t k = x->recount ? 1 : 0; k < ARRAY_SIZE(clear) && ret == 0; k++)
		ret = db_exec(x->db, clear[k], &DB_INT(seq), 1, NULL);
	if (ret == 0)
		ret = db_exec(x->db, "DELETE FROM ix_profiles WHERE version = ?", &DB_TEXT(id), 1,
			      NULL);
	for (size_t i = 0; i < vp->n && ret == 0; i++) {
		char *title = profile_config_title(vp->p[i]);
		struct db_val v[] = {DB_TEXT(id),
				     DB_TEXT(vp->e[i].type),
				     DB_TEXT(vp->e[i].name),
				     DB_TEXT(vp->e[i].blob),
				     DB_TEXT(vp->key[i]),
				     DB_TEXT(title)};

		ret = db_exec(x->db,
			      "INSERT INTO ix_profiles (version, type, name, blob, config_key, "
			      "config) VALUES (?, ?, ?, ?, ?, ?)",
			      v, ARRAY_SIZE(v), NULL);
		free(title);
		if (ret == 0 && newest_of_key(vp, i))
			ret = add_points(x, id, seq, vp, i);
	}
	signature(vp->e, vp->n, &sig);
	if (ret == 0) {
		struct db_val v[] = {DB_INT(vp->n), DB_TEXT(buf_str(&sig)), DB_TEXT(id)};

		ret = db_exec(x->db, "UPDATE ix_versions SET profiles = ?, sig = ? WHERE id = ?", v,
			      3, NULL);
	}
	buf_release(&sig);
	x->stats.versions_read++;
	return ret;
}

/* Its verdict and its children's (they compare against it) are made
 * again, in the background (store_index_verdicts.c): check's statistics cost far more than
 * reading a profile, and a first index of a long history must not wait
 * for thousands of them. */
static int reindex(struct ix_run *x, const char *id, int64_t seq)
{
	struct version_profiles vp = {0};
	int ret = version_profiles_load(x->p->store, id, &vp);

	if (ret == 0)
		ret = write_version(x, id, seq, &vp);
	if (ret == 0)
		ret = db_exec(
			x->db,
			"UPDATE ix_versions SET verdict_due = 1 WHERE id = ? OR (parent = ? AND "
			"profiles > 0)",
			(struct db_val[]){DB_TEXT(id), DB_TEXT(id)}, 2, NULL);
	version_profiles_free(&vp);
	return ret;
}

struct order {
	const char *id;
	int64_t seq;
};

static int by_seq(const void *a, const void *b)
{
	const struct order *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int ix_profiles_update(struct ix_run *x, const char *old_hex)
{
	struct changed c = {.x = x};
	struct order *o = NULL;
	int ret = diff_ledgers(&c, old_hex);

	if (ret == 1)
		ret = compare_all(&c);
	o = xcalloc(c.set.n ? c.set.n : 1, sizeof(*o));
	for (size_t i = 0, k = 0; i < c.set.cap && ret == 0; i++) {
		if (!c.set.keys[i])
			continue;
		o[k].id = c.set.keys[i];
		ret = ix_version_ensure(x, o[k].id);
		if (ret == 0)
			ret = db_query_int(x->db, "SELECT seq FROM ix_versions WHERE id = ?",
					   &DB_TEXT(o[k].id), 1, 0, &o[k].seq);
		k++;
	}
	qsort(o, c.set.n, sizeof(*o), by_seq);
	/* Many versions (a first index, a big pull): the series' counts made
	 * once at the end rather than point by point. */
	x->recount = c.set.n > 100;
	for (size_t i = 0; i < c.set.n && ret == 0; i++)
		ret = reindex(x, o[i].id, o[i].seq);
	if (ret == 0 && x->recount)
		ret = db_exec(
			x->db,
			"UPDATE ix_series SET points = (SELECT COUNT(*) FROM ix_points p WHERE "
			"p.series = ix_series.id)",
			NULL, 0, NULL);
	free(o);
	strmap_free(&c.set);
	return ret;
}
