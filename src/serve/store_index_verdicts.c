/*
 * The store index's verdicts: check of a version against its first
 * parent, made in the background (store_index.c's thread). A version to
 * judge has verdict_due > 0, raised each time its or its parent's profiles
 * change; its profiles are loaded with the project's lock held (libgit2),
 * check's statistics run without it, and a few verdicts are written in one
 * transaction (a commit is a disk sync) that clears each verdict_due only
 * if nothing raised it meanwhile.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/degrade.h"
#include "project/project.h"
#include "project/version_profiles.h"
#include "serve/db.h"
#include "serve/store_index_priv.h"
#include "store/store.h"
#include "util/common.h"
#include "util/error.h"

static int take_due(void *arg, const struct db_row *row)
{
	struct ix_due_list *d = arg;
	struct ix_due *e;

	XGROW(d->v, d->n + 1, d->cap);
	e = &d->v[d->n++];
	snprintf(e->id, sizeof(e->id), "%s", row->v[0].s);
	snprintf(e->parent, sizeof(e->parent), "%s", row->v[1].type == DB_TEXT ? row->v[1].s : "");
	e->mark = row->v[2].i;
	return 0;
}

int ix_due_batch(struct ix_run *x, struct ix_due_list *d)
{
	d->n = 0;
	/* Newest first: the versions a page shows first. */
	return db_query(x->db,
			"SELECT id, parent, verdict_due FROM ix_versions WHERE verdict_due > 0 "
			"ORDER BY seq DESC LIMIT 64",
			NULL, 0, take_due, d);
}

int ix_due_count(struct ix_run *x, int64_t *n)
{
	return db_query_int(x->db, "SELECT COUNT(*) FROM ix_versions WHERE verdict_due > 0", NULL,
			    0, 0, n);
}

int ix_verdict_load(struct ix_run *x, const struct ix_due *d, struct version_profiles *vp,
		    struct version_profiles *pp)
{
	int ret;

	memset(vp, 0, sizeof(*vp));
	memset(pp, 0, sizeof(*pp));
	ret = version_profiles_load(x->p->store, d->id, vp);
	if (ret == 0 && *d->parent)
		ret = version_profiles_load(x->p->store, d->parent, pp);
	return ret;
}

struct worst {
	const char *cls;
	double rel, lo, hi;
};

static void consider(struct worst *w, const struct change *c)
{
	const char *name = change_class_name(c->cls);
	int a = store_index_class_rank(name), b = store_index_class_rank(w->cls);

	if (a > b || (a == b && isfinite(c->rel_change) &&
		      (!isfinite(w->rel) || fabs(c->rel_change) > fabs(w->rel)))) {
		*w = (struct worst){name, c->rel_change, c->ci_low, c->ci_high};
	}
}

static int store_changes(struct ix_run *x, const char *id, const char *key,
			 const struct change_list *cl)
{
	int ret = 0;

	for (size_t k = 0; k < cl->n && ret == 0; k++) {
		const struct change *c = &cl->v[k];
		struct db_val v[] = {DB_TEXT(id),
				     DB_TEXT(key),
				     DB_TEXT(c->location),
				     DB_TEXT(c->method ? c->method : ""),
				     DB_TEXT(change_class_name(c->cls)),
				     IX_REAL(c->rel_change),
				     IX_REAL(c->ci_low),
				     IX_REAL(c->ci_high)};

		ret = db_exec(x->db,
			      "DELETE FROM ix_verdicts WHERE version = ? AND config_key = ? AND "
			      "location = ? AND method = ?",
			      v, 4, NULL);
		if (ret == 0)
			ret = db_exec(
				x->db,
				"INSERT INTO ix_verdicts (version, config_key, location, method, "
				"class, change_rel, ci_low, ci_high) VALUES (?, ?, ?, ?, ?, ?, ?, "
				"?)",
				v, ARRAY_SIZE(v), NULL);
	}
	return ret;
}

static bool newest_of_key(const struct version_profiles *vp, size_t i)
{
	return vp->key[i] && version_profiles_find(vp, vp->key[i]) == (ssize_t)i;
}

/* One version's verdict, in its transaction's part. */
static int write_one(struct ix_run *x, const struct ix_verdict *v)
{
	struct worst w = {NULL, NAN, NAN, NAN};
	int ret = db_exec(x->db, "DELETE FROM ix_verdicts WHERE version = ?", &DB_TEXT(v->d.id), 1,
			  NULL);

	for (size_t i = 0; i < v->n && ret == 0; i++) {
		for (size_t k = 0; k < v->cl[i].n; k++)
			consider(&w, &v->cl[i].v[k]);
		if (v->cl[i].n)
			ret = store_changes(x, v->d.id, v->key[i], &v->cl[i]);
	}
	if (ret == 0) {
		struct db_val p[] = {DB_TEXT(w.cls), IX_REAL(w.rel),	IX_REAL(w.lo),
				     IX_REAL(w.hi),  DB_INT(v->d.mark), DB_TEXT(v->d.id)};

		/* Cleared only if no change raised it since it was read. */
		ret = db_exec(x->db,
			      "UPDATE ix_versions SET verdict = ?, change_rel = ?, ci_low = ?, "
			      "ci_high = ?, verdict_due = CASE WHEN verdict_due = ? THEN 0 ELSE "
			      "verdict_due END WHERE id = ?",
			      p, ARRAY_SIZE(p), NULL);
	}
	return ret;
}

int ix_verdicts_write(struct ix_run *x, const struct ix_verdict *v, size_t n)
{
	int ret = n ? db_begin(x->db) : 0;

	if (ret < 0 || !n)
		return ret;
	for (size_t i = 0; i < n && ret == 0; i++)
		ret = write_one(x, &v[i]);
	if (ret == 0)
		return db_commit(x->db);
	db_rollback(x->db);
	return ret;
}

void ix_verdict_free(struct ix_verdict *v)
{
	for (size_t i = 0; i < v->n; i++) {
		change_list_free(&v->cl[i]);
		free(v->key[i]);
	}
	free(v->cl);
	free(v->key);
	memset(v, 0, sizeof(*v));
}

void ix_verdict_make(struct ix_run *x, const struct ix_due *d, const struct version_profiles *vp,
		     const struct version_profiles *pp, struct ix_verdict *out)
{
	out->d = *d;
	out->n = vp->n;
	out->cl = xcalloc(vp->n ? vp->n : 1, sizeof(*out->cl));
	out->key = xcalloc(vp->n ? vp->n : 1, sizeof(*out->key));
	for (size_t i = 0; i < vp->n; i++) {
		ssize_t j;

		out->key[i] = xstrdup(vp->key[i] ? vp->key[i] : "");
		if (!newest_of_key(vp, i) || (j = version_profiles_find(pp, vp->key[i])) < 0)
			continue;
		/* A pair check cannot compare (a metric one side lacks) has no
		 * verdict; the rest of the history still shows. */
		if (check_compare_pair(&x->opts, pp->p[j], pp->e[j].name, vp->p[i], vp->e[i].name,
				       &out->cl[i]) < 0) {
			err_clear();
			change_list_free(&out->cl[i]);
			memset(&out->cl[i], 0, sizeof(out->cl[i]));
		}
	}
	x->stats.verdicts++;
}
