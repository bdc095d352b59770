/*
 * Resource types: finding one by its persistent attributes or by its key,
 * and naming new ones "UID#N" as Perun does.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/json_sax.h"
#include "profile/numfmt.h"
#include "profile/profile_priv.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/strpool.h"

static uint32_t *slot(uint32_t **arr, size_t *cap, uint32_t id)
{
	if (id >= *cap) {
		size_t old = *cap, i;

		*arr = xgrow(*arr, sizeof(**arr), (size_t)id + 1, cap);
		for (i = old; i < *cap; i++)
			(*arr)[i] = NO_TYPE;
	}
	return &(*arr)[id];
}

#define SLOT(idx, field, id) slot(&(idx)->field, &(idx)->field##_cap, (id))

/* One attribute in the canonical order-free text that identifies a type. */
struct sig_item {
	const char *name;
	enum col_kind kind;
	int64_t i;
	double f;
	const char *s;
};

static int sig_cmp(const void *a, const void *b)
{
	return strcmp(((const struct sig_item *)a)->name, ((const struct sig_item *)b)->name);
}

static void sig_build(struct sig_item *items, size_t n, struct buf *out)
{
	size_t k;

	qsort(items, n, sizeof(*items), sig_cmp);
	buf_reset(out);
	for (k = 0; k < n; k++) {
		const struct sig_item *it = &items[k];
		char num[NUMFMT_MAX];

		buf_add(out, it->name, strlen(it->name) + 1);
		/* 5 and 5.0 are the same attribute value: a column may have
		 * widened since the type was added. */
		if (it->kind == COL_I64) {
			buf_addc(out, 'n');
			buf_add(out, num, numfmt_i64(num, it->i));
		} else if (it->kind == COL_F64) {
			buf_addc(out, 'n');
			if (it->f == trunc(it->f) && fabs(it->f) < 9e18)
				buf_add(out, num, numfmt_i64(num, (int64_t)it->f));
			else
				buf_add(out, num, numfmt_f64(num, it->f));
		} else {
			buf_addc(out, it->kind == COL_STR ? 's' : 'j');
			buf_adds(out, it->s);
		}
		buf_addc(out, '\0');
	}
}

static void sig_of_row(const struct profile *p, uint32_t row, struct buf *out)
{
	const struct table *t = &p->types;
	struct sig_item *items = xcalloc(t->ncols + 1, sizeof(*items));
	size_t i, n = 0;

	for (i = 0; i < t->ncols; i++) {
		const struct column *c = &t->cols[i];

		if (strcmp(c->name, "#key") == 0 || !col_has(c, row))
			continue;
		items[n].name = c->name;
		items[n].kind = c->kind;
		if (c->kind == COL_I64)
			items[n].i = col_i64(c, row);
		else if (c->kind == COL_F64)
			items[n].f = c->v.f64[row];
		else
			items[n].s = strpool_get(p->pool, c->v.id[row]);
		n++;
	}
	sig_build(items, n, out);
	free(items);
}

/* Indexes types added since the last call (the reader adds types by key
 * and fills their attributes later). */
static void index_sync(struct profile *p, struct buf *tmp)
{
	struct profile_index *idx = p->idx;

	for (; idx->nindexed < p->types.nrows; idx->nindexed++) {
		uint32_t row = (uint32_t)idx->nindexed, sig;
		uint32_t *s;

		sig_of_row(p, row, tmp);
		sig = strpool_intern(idx->sigs, buf_str(tmp), tmp->len);
		s = SLOT(idx, type_of_sig, sig);
		if (*s == NO_TYPE)
			*s = row;
	}
}

uint32_t profile_type_by_key(struct profile *p, const char *key, size_t n)
{
	uint32_t id = strpool_intern(p->pool, key, n);
	uint32_t *s = SLOT(p->idx, type_of_key, id);
	struct column *c;

	if (*s != NO_TYPE)
		return *s;
	*s = (uint32_t)p->types.nrows++;
	c = table_col_get(p, &p->types, "#key", COL_STR);
	col_set_id(&p->types, c, *s, id);
	return *s;
}

void profile_index_keys(struct profile *p)
{
	const struct column *c = table_col(&p->types, "#key");

	for (size_t row = 0; c && c->kind == COL_STR && row < p->types.nrows; row++) {
		uint32_t *s;

		if (!col_has(c, row))
			continue;
		s = SLOT(p->idx, type_of_key, c->v.id[row]);
		if (*s == NO_TYPE)
			*s = (uint32_t)row;
	}
}

void uid_render_json(const char *json, size_t n, struct buf *out)
{
	static const char *const parts[] = {"source", "function", "line", "column"};
	char *vals[4] = {NULL, NULL, NULL, NULL};
	struct jsax j;
	size_t k, want = SIZE_MAX;
	int ev, depth = 0;

	jsax_init_mem(&j, json, n, "uid");
	while ((ev = jsax_next(&j)) > 0) {
		if (ev == JEV_OBJ_START || ev == JEV_ARR_START)
			depth++;
		else if (ev == JEV_OBJ_END || ev == JEV_ARR_END)
			depth--;
		else if (ev == JEV_KEY && depth == 1)
			for (want = SIZE_MAX, k = 0; k < ARRAY_SIZE(parts); k++)
				if (strlen(parts[k]) == j.slen && !memcmp(parts[k], j.s, j.slen))
					want = k;
		if (depth == 1 && want < ARRAY_SIZE(parts) && !vals[want]) {
			if (ev == JEV_STR)
				vals[want] = xstrndup(j.s, j.slen);
			else if (ev == JEV_INT || ev == JEV_DBL)
				vals[want] = xstrndup(j.raw, j.rawlen);
		}
	}
	jsax_release(&j);
	if (!vals[0] && !vals[1] && !vals[2]) {
		/* Not a source location: show the JSON itself. */
		buf_add(out, json, n);
	} else {
		for (k = 0; k < ARRAY_SIZE(parts); k++) {
			if (k == 3 && !vals[3])
				break;
			if (k)
				buf_addc(out, ':');
			buf_adds(out, vals[k] ? vals[k] : "");
		}
	}
	for (k = 0; k < ARRAY_SIZE(parts); k++)
		free(vals[k]);
}

static void uid_text(const struct attr *a, struct buf *out)
{
	char num[NUMFMT_MAX];

	buf_reset(out);
	if (!a)
		return;
	if (a->kind == COL_STR)
		buf_adds(out, a->s);
	else if (a->kind == COL_JSON)
		uid_render_json(a->s, strlen(a->s), out);
	else if (a->kind == COL_I64)
		buf_add(out, num, numfmt_i64(num, a->i));
	else
		buf_add(out, num, numfmt_f64(num, a->f));
}

/* A fresh key "UID#N" for a new type. */
static uint32_t new_key(struct profile *p, const struct attr *uid, struct buf *tmp)
{
	struct profile_index *idx = p->idx;
	uint32_t uid_id, n, *next;
	size_t base;

	uid_text(uid, tmp);
	uid_id = strpool_intern(p->pool, buf_str(tmp), tmp->len);
	next = SLOT(idx, uid_next, uid_id);
	n = *next == NO_TYPE ? 0 : *next;
	base = tmp->len;
	for (;; n++) {
		uint32_t key;

		tmp->len = base;
		buf_addf(tmp, "#%u", n);
		key = strpool_find(p->pool, buf_str(tmp), tmp->len);
		if (key == UINT32_MAX || key >= idx->type_of_key_cap ||
		    idx->type_of_key[key] == NO_TYPE)
			break;
	}
	/* SLOT may have moved the array while probing keys. */
	*SLOT(idx, uid_next, uid_id) = n + 1;
	return strpool_intern(p->pool, buf_str(tmp), tmp->len);
}

uint32_t profile_type_add(struct profile *p, const struct attr *attrs, size_t n)
{
	struct sig_item *items = xcalloc(n + 1, sizeof(*items));
	struct profile_index *idx = p->idx;
	struct buf tmp = BUF_INIT;
	const struct attr *uid = NULL;
	uint32_t sig, row, key, *s;
	size_t k;

	index_sync(p, &tmp);
	for (k = 0; k < n; k++) {
		items[k] = (struct sig_item){attrs[k].name, attrs[k].kind, attrs[k].i, attrs[k].f,
					     attrs[k].s};
		if (strcmp(attrs[k].name, "uid") == 0)
			uid = &attrs[k];
	}
	sig_build(items, n, &tmp);
	free(items);
	sig = strpool_intern(idx->sigs, buf_str(&tmp), tmp.len);
	s = SLOT(idx, type_of_sig, sig);
	if (*s != NO_TYPE) {
		buf_release(&tmp);
		return *s;
	}
	key = new_key(p, uid, &tmp);
	row = profile_type_by_key(p, strpool_get(p->pool, key), strpool_len(p->pool, key));
	for (k = 0; k < n; k++)
		table_set(p, &p->types, row, &attrs[k]);
	*SLOT(idx, type_of_sig, sig) = row;
	idx->nindexed = p->types.nrows;
	buf_release(&tmp);
	return row;
}
