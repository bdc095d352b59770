/*
 * The store index's versions and refs. Every version in ix_versions has
 * its whole ancestry there too, so adding what a new tip brings stops at
 * the first known version on each line: a new commit costs one lookup,
 * whatever the history's length.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "project/project.h"
#include "serve/db.h"
#include "serve/store_index_priv.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "vcs/git_lazy.h"
#include "vcs/vcs.h"

struct ver {
	char id[41];
	char parents[4 * 41];
	int64_t time;
	char label[24];
	char *author, *summary;
};

struct found {
	struct ver *v;
	size_t n, cap;
	char (*todo)[41];
	size_t ntodo, todo_cap;
	struct strmap seen;
};

static int is_known(struct ix_run *x, const char *id, bool *yes)
{
	int64_t n = 0;
	int ret = db_query_int(x->db, "SELECT COUNT(*) FROM ix_versions WHERE id = ?", &DB_TEXT(id),
			       1, 0, &n);

	*yes = n > 0;
	return ret;
}

static void push(struct found *f, const char *id)
{
	bool added;

	strmap_intern(&f->seen, id, &added);
	if (!added)
		return;
	XGROW(f->todo, f->ntodo + 1, f->todo_cap);
	snprintf(f->todo[f->ntodo++], 41, "%s", id);
}

static void remember(struct found *f, const struct vcs_version *ver)
{
	struct ver *v;

	XGROW(f->v, f->n + 1, f->cap);
	v = &f->v[f->n++];
	memset(v, 0, sizeof(*v));
	memcpy(v->id, ver->id, 41);
	for (size_t k = 0, at = 0; k < ver->nparents && k < 4; k++)
		at += (size_t)snprintf(v->parents + at, sizeof(v->parents) - at, "%s%s",
				       k ? " " : "", ver->parents[k]);
	v->time = ver->time;
	/* A plain directory's versions are numbered, as `veles log` says. */
	if (ver->counter)
		snprintf(v->label, sizeof(v->label), "v%u (%.7s)", ver->counter, ver->id);
	else
		snprintf(v->label, sizeof(v->label), "%.7s", ver->id);
	v->author = xstrdup(ver->author ? ver->author : "");
	v->summary = xstrdup(ver->summary ? ver->summary : "");
}

/* Newest first, as git log shows them; discovery order among equals. */
static int by_time_desc(const void *a, const void *b)
{
	const struct ver *x = a, *y = b;

	return x->time != y->time ? (x->time < y->time ? 1 : -1) : 0;
}

static int insert(struct ix_run *x, struct found *f)
{
	int ret = 0;

	if (f->n)
		qsort(f->v, f->n, sizeof(*f->v), by_time_desc);
	for (size_t i = 0; i < f->n && ret == 0; i++) {
		struct ver *v = &f->v[i];
		char first[41];

		snprintf(first, sizeof(first), "%.40s", v->parents);
		struct db_val p[] = {
			DB_TEXT(v->id),
			DB_INT(x->max_seq + (int64_t)(f->n - i)),
			(struct db_val){.type = *first ? DB_TEXT : DB_NULL, .s = first},
			DB_TEXT(v->parents),
			DB_TEXT(v->label),
			DB_INT(v->time),
			DB_TEXT(v->author),
			DB_TEXT(v->summary)};
		ret = db_exec(x->db,
			      "INSERT INTO ix_versions (id, seq, parent, parents, label, time, "
			      "author, summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
			      p, ARRAY_SIZE(p), NULL);
	}
	x->max_seq += (int64_t)f->n;
	x->stats.versions_added += f->n;
	return ret;
}

static void found_free(struct found *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].author);
		free(f->v[i].summary);
	}
	free(f->v);
	free(f->todo);
	strmap_free(&f->seen);
}

/* Adds @tip and every ancestor of it the index lacks. */
static int add_from(struct ix_run *x, const char *tip)
{
	struct found f = {0};
	int ret = 0;

	push(&f, tip);
	while (f.ntodo && ret == 0) {
		char id[41];
		struct vcs_version ver;
		bool known;

		memcpy(id, f.todo[--f.ntodo], 41);
		ret = is_known(x, id, &known);
		if (ret < 0 || known)
			continue;
		ret = vcs_version_info(x->p->vcs, id, &ver);
		if (ret < 0)
			break;
		remember(&f, &ver);
		for (size_t k = 0; k < ver.nparents && k < 4; k++)
			push(&f, ver.parents[k]);
	}
	if (ret == 0)
		ret = insert(x, &f);
	found_free(&f);
	return ret;
}

int ix_version_ensure(struct ix_run *x, const char *id)
{
	bool known;
	int ret = is_known(x, id, &known);

	if (ret == 0 && !known) {
		ret = add_from(x, id);
		/* A profile may name a version this repository no longer has
		 * (a pull from a clone with other commits): it still shows. */
		if (ret == ERR_NOTFOUND || ret == ERR_INVALID) {
			struct db_val p[] = {DB_TEXT(id), DB_INT(++x->max_seq), DB_TEXT(id)};
			err_clear();
			ret = db_exec(
				x->db,
				"INSERT INTO ix_versions (id, seq, parents, label, time, author, "
				"summary) VALUES (?, ?, '', substr(?, 1, 7), 0, '', '')",
				p, 3, NULL);
		}
	}
	return ret;
}

struct ref {
	char *name;
	char target[41];
};

struct refs {
	struct ref *r;
	size_t n, cap;
};

static void refs_add(struct refs *rs, const char *name, const char *target)
{
	XGROW(rs->r, rs->n + 1, rs->cap);
	rs->r[rs->n].name = xstrdup(name);
	snprintf(rs->r[rs->n].target, 41, "%s", target);
	rs->n++;
}

static void refs_glob(struct refs *rs, git_repository *repo, const char *glob)
{
	git_reference_iterator *it = NULL;
	git_reference *ref;
	char hex[41];

	if (git_reference_iterator_glob_new(&it, repo, glob) < 0)
		return;
	while (git_reference_next(&ref, it) == 0) {
		if (git_reference_target(ref)) {
			git_oid_tostr(hex, sizeof(hex), git_reference_target(ref));
			refs_add(rs, git_reference_name(ref), hex);
		}
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
}

/* A ref and the version it names, as ix_refs keeps them. */
static int ref_row(struct ix_run *x, const struct ref *r)
{
	char version[41];
	int ret;

	if (strcmp(r->name, "HEAD") == 0)
		snprintf(version, sizeof(version), "%s", r->target);
	else if ((ret = vcs_resolve(x->p->vcs, r->name, version)) < 0)
		return 0; /* a tag of something else than a commit: no version */
	ret = add_from(x, version);
	if (ret == 0) {
		struct db_val p[] = {
			DB_TEXT(r->name), {.type = DB_TEXT, .s = version}, DB_TEXT(r->target)};

		ret = db_exec(x->db, "INSERT INTO ix_refs (name, version, target) VALUES (?, ?, ?)",
			      p, 3, NULL);
	}
	return ret;
}

int ix_refs_update(struct ix_run *x)
{
	git_repository *repo = vcs_store_repo(x->p->vcs);
	struct refs rs = {0};
	char head[41];
	int ret;

	if (vcs_head(x->p->vcs, head) == 0)
		refs_add(&rs, "HEAD", head);
	err_clear();
	refs_glob(&rs, repo, "refs/heads/*");
	refs_glob(&rs, repo, "refs/tags/*");
	ret = db_exec(x->db, "DELETE FROM ix_refs", NULL, 0, NULL);
	for (size_t i = 0; i < rs.n && ret == 0; i++)
		ret = ref_row(x, &rs.r[i]);
	for (size_t i = 0; i < rs.n; i++)
		free(rs.r[i].name);
	free(rs.r);
	return ret;
}
