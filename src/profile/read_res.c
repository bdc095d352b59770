/*
 * The resource layouts: "resources" keyed by type (+ "resource_type_map"),
 * "global" and plain lists of resource dicts, and "snapshots".
 */
#include <stdlib.h>
#include <string.h>

#include "profile/json_sax.h"
#include "profile/profile_priv.h"
#include "profile/read_priv.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/strpool.h"

/* Keys of a resource dict that vary per measurement; the rest describe
 * its type. The time collector's per-run fields are among them: a peak RSS
 * that differs between runs must not split one command into many types. */
static const char *const collectable[] = {
	"amount",    "structure-unit-size", "call-order", "order",	 "address",
	"timestamp", "exclusive",	    "max-rss",	  "exit-status", "signal",
};

_Static_assert(ARRAY_SIZE(collectable) <= ARRAY_SIZE(((struct reader *)0)->coll),
	       "reader.coll holds every collectable key");

void reader_release(struct reader *r)
{
	buf_release(&r->tmp);
	buf_release(&r->strs);
	buf_release(&r->snap_time_str);
	buf_release(&r->sc.sig);
	buf_release(&r->sc.sigs);
	buf_release(&r->flat.sig);
	buf_release(&r->flat.sigs);
	free(r->attrs);
	free(r->vals);
}

static const char *intern_key(struct reader *r)
{
	struct strpool *pool = r->p->pool;

	return strpool_get(pool, strpool_intern(pool, r->j.s, r->j.slen));
}

/*
 * Reads the value whose first event is @ev into @a (strings and JSON text
 * appended to @strs, NUL-terminated, their offset in a->i). Returns 1, or 0
 * for null (no value).
 */
static int read_attr(struct reader *r, int ev, struct attr *a, struct buf *strs)
{
	int ret;

	switch (ev) {
	case JEV_INT:
		a->kind = COL_I64;
		a->i = r->j.i;
		return 1;
	case JEV_DBL:
		a->kind = COL_F64;
		a->f = r->j.d;
		return 1;
	case JEV_NULL:
		return 0;
	case JEV_STR:
		a->kind = COL_STR;
		a->i = (int64_t)strs->len;
		buf_add(strs, r->j.s, r->j.slen);
		break;
	default:
		if (ev < 0)
			return ev;
		a->kind = COL_JSON;
		a->i = (int64_t)strs->len;
		if ((ret = jsax_capture(&r->j, ev, strs)) < 0)
			return ret;
	}
	buf_addc(strs, '\0');
	return 1;
}

/* Stores the value starting with event @ev in column @name at @row. */
static int set_cell(struct reader *r, struct table *t, const char *name, size_t row, int ev)
{
	struct attr a = {.name = name};
	int ret;

	buf_reset(&r->tmp);
	ret = read_attr(r, ev, &a, &r->tmp);
	if (ret <= 0)
		return ret;
	if (a.kind == COL_STR || a.kind == COL_JSON)
		a.s = r->tmp.data + a.i;
	table_set(r->p, t, row, &a);
	return 0;
}

/* Adds rows of @type until the entry has @need of them. */
static void entry_rows(struct profile *p, uint32_t type, size_t need, size_t *count)
{
	if (need > *count) {
		profile_res_add_n(p, type, need - *count);
		*count = need;
	}
}

/* One array member of a typed entry: values for rows first, first+1, ... */
static int read_column(struct reader *r, uint32_t type, const char *name, size_t first,
		       size_t *count)
{
	struct profile *p = r->p;
	struct column *c = table_col_get(p, &p->res, name, COL_I64);
	size_t i = 0;
	int ev, ret;

	for (;;) {
		/* The hot path: integers parsed straight into the column. */
		if (c->kind == COL_I64 && first + i == c->len) {
			int64_t block[1024];
			size_t n = jsax_ints(&r->j, block, ARRAY_SIZE(block));

			if (n) {
				col_append_i64(c, block, n);
				i += n;
				entry_rows(p, type, i, count);
				continue;
			}
		}
		ev = jsax_next(&r->j);
		if (ev == JEV_ARR_END)
			return 0;
		if (ev < 0)
			return ev;
		entry_rows(p, type, ++i, count);
		if ((ret = set_cell(r, &p->res, name, first + i - 1, ev)) < 0)
			return ret;
	}
}

/* "KEY": {"amount": [...], "address": [...]} or of scalars, or {}. */
static int read_entry(struct reader *r, uint32_t type)
{
	struct profile *p = r->p;
	size_t first = p->res.nrows, count = 0;
	int ev, ret;

	while ((ev = jsax_next(&r->j)) == JEV_KEY) {
		const char *name = intern_key(r);

		ev = jsax_next(&r->j);
		if (ev == JEV_ARR_START) {
			ret = read_column(r, type, name, first, &count);
		} else {
			if (!count) {
				profile_res_add(p, type);
				count = 1;
			}
			ret = set_cell(r, &p->res, name, first, ev);
		}
		if (ret < 0)
			return ret;
	}
	if (ev < 0)
		return ev;
	/* An entry without values (bounds profiles) is still one resource. */
	if (!count)
		profile_res_add(p, type);
	return 0;
}

static int read_typed(struct reader *r)
{
	int ev, ret;

	for (;;) {
		if (r->split && r->j.p >= r->split_at)
			split_finish(r, true);
		if ((ev = jsax_next(&r->j)) != JEV_KEY)
			break;
		uint32_t type = profile_type_by_key(r->p, r->j.s, r->j.slen);

		ev = jsax_next(&r->j);
		if (ev != JEV_OBJ_START)
			return ev < 0 ? ev
				      : jsax_error(&r->j, "a resource entry must be an object");
		if ((ret = read_entry(r, type)) < 0)
			return ret;
	}
	return ev < 0 ? ev : 0;
}

int read_typed_resources(struct reader *r)
{
	int ret;

	split_start(r, '{');
	ret = read_typed(r);
	if (r->split)
		split_finish(r, false);
	return ret;
}

int read_type_map(struct reader *r)
{
	struct profile *p = r->p;
	int ev, ret;

	while ((ev = jsax_next(&r->j)) == JEV_KEY) {
		uint32_t type = profile_type_by_key(p, r->j.s, r->j.slen);

		ev = jsax_next(&r->j);
		if (ev != JEV_OBJ_START)
			return ev < 0 ? ev : jsax_error(&r->j, "a resource type must be an object");
		while ((ev = jsax_next(&r->j)) == JEV_KEY) {
			const char *name = intern_key(r);

			if ((ret = set_cell(r, &p->types, name, type, jsax_next(&r->j))) < 0)
				return ret;
		}
		if (ev < 0)
			return ev;
	}
	return ev < 0 ? ev : 0;
}

/* @name is interned in the profile's pool, so pointers compare. */
static bool is_collectable(struct reader *r, const char *name)
{
	size_t k;

	if (!r->coll[0])
		for (k = 0; k < ARRAY_SIZE(collectable); k++)
			r->coll[k] = strpool_get(r->p->pool,
						 strpool_intern_cstr(r->p->pool, collectable[k]));
	for (k = 0; k < ARRAY_SIZE(collectable); k++)
		if (r->coll[k] == name)
			return true;
	return false;
}

/* The key at position @pos of a resource dict: usually the same as the
 * previous resource's, which a compare finds without hashing. */
static const char *dict_key(struct reader *r, size_t pos)
{
	const char *k = pos < ARRAY_SIZE(r->keys) ? r->keys[pos] : NULL;

	if (k && r->key_len[pos] == r->j.slen && memcmp(k, r->j.s, r->j.slen) == 0)
		return k;
	k = intern_key(r);
	if (pos < ARRAY_SIZE(r->keys)) {
		r->keys[pos] = k;
		r->key_len[pos] = r->j.slen;
	}
	return k;
}

/* The raw signature of a resource's persistent attributes, in document
 * order: name pointers, kinds and values. Equal signatures mean the same
 * type, so most resources skip profile_type_add()'s canonical lookup. */
static void raw_signature(struct reader *r, struct buf *sig)
{
	size_t k;

	buf_reset(sig);
	for (k = 0; k < r->nattrs; k++) {
		const struct attr *a = &r->attrs[k];

		buf_add(sig, &a->name, sizeof(a->name));
		buf_addc(sig, (char)a->kind);
		if (a->kind == COL_STR || a->kind == COL_JSON)
			buf_add(sig, a->s, strlen(a->s) + 1);
		else if (a->kind == COL_F64)
			buf_add(sig, &a->f, sizeof(a->f));
		else
			buf_add(sig, &a->i, sizeof(a->i));
	}
}

/* The type cached for signature @sig, or NO_TYPE. */
static uint32_t sigcache_find(const struct sigcache *c, const void *sig, size_t len)
{
	size_t k;

	for (k = 0; k < c->nsigs; k++)
		if (c->sig_off[k + 1] - c->sig_off[k] == len &&
		    memcmp(c->sigs.data + c->sig_off[k], sig, len) == 0)
			return c->sig_type[k];
	return NO_TYPE;
}

static void sigcache_put(struct sigcache *c, const void *sig, size_t len, uint32_t type)
{
	size_t at;

	if (c->nsigs == ARRAY_SIZE(c->sig_type)) {
		/* Full: start over; profiles with many types gain little. */
		c->nsigs = 0;
		buf_reset(&c->sigs);
	}
	at = c->sigs.len;
	buf_add(&c->sigs, sig, len);
	c->sig_off[c->nsigs] = at;
	c->sig_off[c->nsigs + 1] = c->sigs.len;
	c->sig_type[c->nsigs++] = type;
}

static uint32_t type_of_attrs(struct reader *r)
{
	uint32_t type;

	raw_signature(r, &r->sc.sig);
	if ((type = sigcache_find(&r->sc, r->sc.sig.data, r->sc.sig.len)) != NO_TYPE)
		return type;
	type = profile_type_add(r->p, r->attrs, r->nattrs);
	sigcache_put(&r->sc, r->sc.sig.data, r->sc.sig.len, type);
	return type;
}

static void push_attr(struct attr **arr, size_t *n, size_t *cap, const struct attr *a)
{
	*arr = xgrow(*arr, sizeof(**arr), *n + 1, cap);
	(*arr)[(*n)++] = *a;
}

static void fix_strs(struct attr *a, size_t n, const struct buf *strs)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (a[k].kind == COL_STR || a[k].kind == COL_JSON)
			a[k].s = strs->data + a[k].i;
}

static int read_res_dict(struct reader *r, int snapshot)
{
	struct profile *p = r->p;
	size_t row, k;
	uint32_t type;
	int ev, ret;

	size_t pos = 0;

	r->nattrs = r->nvals = 0;
	buf_reset(&r->strs);
	while ((ev = jsax_next(&r->j)) == JEV_KEY) {
		struct attr a = {.name = dict_key(r, pos++)};

		if ((ret = read_attr(r, jsax_next(&r->j), &a, &r->strs)) < 0)
			return ret;
		if (ret == 0)
			continue;
		if (is_collectable(r, a.name))
			push_attr(&r->vals, &r->nvals, &r->vals_cap, &a);
		else
			push_attr(&r->attrs, &r->nattrs, &r->attrs_cap, &a);
	}
	if (ev < 0)
		return ev;
	fix_strs(r->attrs, r->nattrs, &r->strs);
	fix_strs(r->vals, r->nvals, &r->strs);
	if (snapshot >= 0) {
		struct attr a = {.name = "snapshot", .kind = COL_I64, .i = snapshot};

		push_attr(&r->attrs, &r->nattrs, &r->attrs_cap, &a);
		if (r->has_snap_time)
			push_attr(&r->attrs, &r->nattrs, &r->attrs_cap, &r->snap_time);
	}
	type = type_of_attrs(r);
	row = profile_res_add(p, type);
	for (k = 0; k < r->nvals; k++)
		table_set(p, &p->res, row, &r->vals[k]);
	return 0;
}

/* ---- the fast path: flat resource dicts read whole (jsax_flat_next) ---- */

/* The key of member @pos: the last flat resource's when it matches. */
static struct flat_key *flat_key(struct reader *r, size_t pos, const struct jmember *m)
{
	struct flat_key *k = &r->fkeys[pos];
	struct strpool *pool = r->p->pool;

	if (k->name && k->len == m->klen && memcmp(k->name, m->key, m->klen) == 0)
		return k;
	k->name = strpool_get(pool, strpool_intern(pool, m->key, m->klen));
	k->len = m->klen;
	k->coll = is_collectable(r, k->name);
	k->col = SIZE_MAX;
	return k;
}

/* A member's value as an attribute (text copied to @strs, offset in i). */
static void member_attr(const struct jmember *m, struct attr *a, struct buf *strs)
{
	switch (m->ev) {
	case JEV_INT:
		a->kind = COL_I64;
		a->i = m->i;
		return;
	case JEV_DBL:
		a->kind = COL_F64;
		a->f = m->d;
		return;
	case JEV_STR:
		a->kind = COL_STR;
		a->i = (int64_t)strs->len;
		buf_add(strs, m->raw, m->rawlen);
		break;
	default:
		a->kind = COL_JSON;
		a->i = (int64_t)strs->len;
		buf_adds(strs, m->ev == JEV_TRUE ? "true" : "false");
	}
	buf_addc(strs, '\0');
}

/* Appends member @m's name, kind and text to the signature at @sig (@len
 * bytes so far, room for @cap); false when it does not fit. */
static bool flat_sig_add(char *sig, size_t *len, size_t cap, const struct flat_key *k,
			 const struct jmember *m)
{
	size_t need = sizeof(k->name) + 1 + sizeof(m->rawlen) + m->rawlen;

	if (*len + need > cap)
		return false;
	sig += *len;
	memcpy(sig, &k->name, sizeof(k->name));
	sig[sizeof(k->name)] = (char)m->ev;
	memcpy(sig + sizeof(k->name) + 1, &m->rawlen, sizeof(m->rawlen));
	memcpy(sig + sizeof(k->name) + 1 + sizeof(m->rawlen), m->raw, m->rawlen);
	*len += need;
	return true;
}

/* The type of a flat resource from its persistent members. */
static uint32_t flat_type(struct reader *r, const struct jmember *m, struct flat_key **keys,
			  size_t n, int snapshot)
{
	struct sigcache *c = &r->flat;
	char sig[512];
	size_t i, len = 0;
	bool fits = true;
	uint32_t type;

	for (i = 0; i < n && fits; i++)
		if (!keys[i]->coll && m[i].ev != JEV_NULL)
			fits = flat_sig_add(sig, &len, sizeof(sig) - sizeof(snapshot), keys[i],
					    &m[i]);
	memcpy(sig + len, &snapshot, sizeof(snapshot));
	len += sizeof(snapshot);
	if (fits && (type = sigcache_find(c, sig, len)) != NO_TYPE)
		return type;
	r->nattrs = 0;
	buf_reset(&r->strs);
	for (i = 0; i < n; i++) {
		struct attr a = {.name = keys[i]->name};

		if (keys[i]->coll || m[i].ev == JEV_NULL)
			continue;
		member_attr(&m[i], &a, &r->strs);
		push_attr(&r->attrs, &r->nattrs, &r->attrs_cap, &a);
	}
	fix_strs(r->attrs, r->nattrs, &r->strs);
	if (snapshot >= 0) {
		struct attr a = {.name = "snapshot", .kind = COL_I64, .i = snapshot};

		push_attr(&r->attrs, &r->nattrs, &r->attrs_cap, &a);
		if (r->has_snap_time)
			push_attr(&r->attrs, &r->nattrs, &r->attrs_cap, &r->snap_time);
	}
	type = profile_type_add(r->p, r->attrs, r->nattrs);
	if (fits)
		sigcache_put(c, sig, len, type);
	return type;
}

/* Stores collectable member @m at @row, numbers straight into their column. */
static void flat_cell(struct reader *r, struct flat_key *k, const struct jmember *m, size_t row)
{
	struct profile *p = r->p;
	struct column *c = k->col < p->res.ncols && p->res.cols[k->col].name == k->name
				   ? &p->res.cols[k->col]
				   : NULL;
	struct attr a = {.name = k->name};

	if (c && m->ev == JEV_INT && (c->kind == COL_I64 || c->kind == COL_F64)) {
		col_set_i64(&p->res, c, row, m->i);
		return;
	}
	if (c && m->ev == JEV_DBL && c->kind == COL_F64) {
		col_set_f64(&p->res, c, row, m->d);
		return;
	}
	buf_reset(&r->tmp);
	member_attr(m, &a, &r->tmp);
	if (a.kind == COL_STR || a.kind == COL_JSON)
		a.s = r->tmp.data + a.i;
	table_set(p, &p->res, row, &a);
	c = table_col(&p->res, k->name);
	k->col = c ? (size_t)(c - p->res.cols) : SIZE_MAX;
}

/* Returns 1 when the resource was read whole, 0 to read it event by event. */
static int read_res_flat(struct reader *r, int snapshot)
{
	struct jmember m[ARRAY_SIZE(r->fkeys)];
	struct flat_key *keys[ARRAY_SIZE(r->fkeys)];
	size_t n, i, row;
	bool same;
	int ret = jsax_flat_next(&r->j, m, ARRAY_SIZE(m), &n, &same);

	if (ret <= 0)
		return ret;
	for (i = 0; i < n; i++)
		keys[i] = same ? &r->fkeys[i] : flat_key(r, i, &m[i]);
	row = profile_res_add(r->p, flat_type(r, m, keys, n, snapshot));
	for (i = 0; i < n; i++)
		if (keys[i]->coll && m[i].ev != JEV_NULL)
			flat_cell(r, keys[i], &m[i], row);
	return 1;
}

static int read_list(struct reader *r, int snapshot)
{
	int ev, ret;

	for (;;) {
		if (r->split && r->j.p >= r->split_at)
			split_finish(r, true);
		if ((ret = read_res_flat(r, snapshot)) != 0) {
			if (ret < 0)
				return ret;
			continue;
		}
		if ((ev = jsax_next(&r->j)) == JEV_ARR_END)
			return 0;
		if (ev != JEV_OBJ_START)
			return ev < 0 ? ev : jsax_error(&r->j, "a resource must be an object");
		if ((ret = read_res_dict(r, snapshot)) < 0)
			return ret;
	}
}

int read_res_list(struct reader *r, int snapshot)
{
	int ret;

	if (snapshot < 0)
		split_start(r, '[');
	ret = read_list(r, snapshot);
	if (r->split)
		split_finish(r, false);
	return ret;
}

int read_global(struct reader *r)
{
	struct profile *p = r->p;
	int ev, ret;

	p->layout = LAYOUT_GLOBAL;
	while ((ev = jsax_next(&r->j)) == JEV_KEY) {
		if (r->j.slen == 9 && memcmp(r->j.s, "timestamp", 9) == 0) {
			ev = jsax_next(&r->j);
			if (ev == JEV_INT || ev == JEV_DBL) {
				p->has_timestamp = true;
				p->timestamp = ev == JEV_INT ? (double)r->j.i : r->j.d;
			} else if ((ret = jsax_skip(&r->j, ev)) < 0) {
				return ret;
			}
		} else if (r->j.slen == 9 && memcmp(r->j.s, "resources", 9) == 0) {
			ev = jsax_next(&r->j);
			if (ev != JEV_ARR_START)
				return ev < 0 ? ev
					      : jsax_error(&r->j,
							   "global.resources must be a list");
			if ((ret = read_res_list(r, -1)) < 0)
				return ret;
		} else if ((ret = jsax_skip(&r->j, jsax_next(&r->j))) < 0) {
			return ret;
		}
	}
	return ev < 0 ? ev : 0;
}

/* {"time": T, "resources": [...]}; "time" is expected first, as Perun
 * writes it. */
static int read_snapshot(struct reader *r, int idx)
{
	int ev, ret;

	r->has_snap_time = false;
	while ((ev = jsax_next(&r->j)) == JEV_KEY) {
		if (r->j.slen == 4 && memcmp(r->j.s, "time", 4) == 0) {
			struct attr a = {.name = "time"};

			buf_reset(&r->snap_time_str);
			ret = read_attr(r, jsax_next(&r->j), &a, &r->snap_time_str);
			if (ret < 0)
				return ret;
			fix_strs(&a, 1, &r->snap_time_str);
			r->snap_time = a;
			r->has_snap_time = ret > 0;
		} else if (r->j.slen == 9 && memcmp(r->j.s, "resources", 9) == 0) {
			ev = jsax_next(&r->j);
			if (ev != JEV_ARR_START)
				return ev < 0 ? ev
					      : jsax_error(&r->j,
							   "snapshot resources must be a list");
			if ((ret = read_res_list(r, idx)) < 0)
				return ret;
		} else if ((ret = jsax_skip(&r->j, jsax_next(&r->j))) < 0) {
			return ret;
		}
	}
	return ev < 0 ? ev : 0;
}

int read_snapshots(struct reader *r)
{
	int ev, ret, idx = 0;

	while ((ev = jsax_next(&r->j)) != JEV_ARR_END) {
		if (ev != JEV_OBJ_START)
			return ev < 0 ? ev : jsax_error(&r->j, "a snapshot must be an object");
		if ((ret = read_snapshot(r, idx++)) < 0)
			return ret;
	}
	return 0;
}
