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
	buf_release(&r->sig);
	buf_release(&r->sigs);
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

int read_typed_resources(struct reader *r)
{
	int ev, ret;

	while ((ev = jsax_next(&r->j)) == JEV_KEY) {
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
static void raw_signature(struct reader *r)
{
	size_t k;

	buf_reset(&r->sig);
	for (k = 0; k < r->nattrs; k++) {
		const struct attr *a = &r->attrs[k];

		buf_add(&r->sig, &a->name, sizeof(a->name));
		buf_addc(&r->sig, (char)a->kind);
		if (a->kind == COL_STR || a->kind == COL_JSON)
			buf_add(&r->sig, a->s, strlen(a->s) + 1);
		else if (a->kind == COL_F64)
			buf_add(&r->sig, &a->f, sizeof(a->f));
		else
			buf_add(&r->sig, &a->i, sizeof(a->i));
	}
}

static uint32_t type_of_attrs(struct reader *r)
{
	size_t k, len;
	uint32_t type;

	raw_signature(r);
	for (k = 0; k < r->nsigs; k++)
		if (r->sig_off[k + 1] - r->sig_off[k] == r->sig.len &&
		    memcmp(r->sigs.data + r->sig_off[k], r->sig.data, r->sig.len) == 0)
			return r->sig_type[k];
	type = profile_type_add(r->p, r->attrs, r->nattrs);
	if (r->nsigs == ARRAY_SIZE(r->sig_type)) {
		/* Full: start over; profiles with many types gain little. */
		r->nsigs = 0;
		buf_reset(&r->sigs);
	}
	len = r->sigs.len;
	buf_add(&r->sigs, r->sig.data, r->sig.len);
	r->sig_off[r->nsigs] = len;
	r->sig_off[r->nsigs + 1] = r->sigs.len;
	r->sig_type[r->nsigs++] = type;
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

int read_res_list(struct reader *r, int snapshot)
{
	int ev, ret;

	while ((ev = jsax_next(&r->j)) != JEV_ARR_END) {
		if (ev != JEV_OBJ_START)
			return ev < 0 ? ev : jsax_error(&r->j, "a resource must be an object");
		if ((ret = read_res_dict(r, snapshot)) < 0)
			return ret;
	}
	return 0;
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
