/* The column tables: creation, cells, kind conversions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/numfmt.h"
#include "profile/profile_priv.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/strpool.h"

struct profile *profile_new(void)
{
	struct profile *p = xcalloc(1, sizeof(*p));

	p->pool = strpool_new();
	p->layout = LAYOUT_TYPED;
	p->idx = xcalloc(1, sizeof(*p->idx));
	p->idx->sigs = strpool_new();
	return p;
}

static void table_release(struct table *t)
{
	size_t i;

	for (i = 0; i < t->ncols; i++) {
		free(t->cols[i].v.i64);
		free(t->cols[i].absent);
	}
	free(t->cols);
	memset(t, 0, sizeof(*t));
}

static void kvs_free(struct kv *kv, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	free(p->origin);
	free(p->type);
	free(p->cmd);
	free(p->args);
	free(p->workload);
	kvs_free(p->units, p->nunits);
	kvs_free(p->header_extra, p->nheader_extra);
	free(p->collector);
	free(p->collector_params);
	free(p->postprocessors);
	free(p->models);
	kvs_free(p->extra, p->nextra);
	table_release(&p->types);
	table_release(&p->res);
	free(p->res_type);
	if (p->idx) {
		strpool_free(p->idx->sigs);
		free(p->idx->type_of_sig);
		free(p->idx->type_of_key);
		free(p->idx->uid_next);
		free(p->idx);
	}
	strpool_free(p->pool);
	free(p);
}

static size_t cell_size(const struct column *c)
{
	return c->kind == COL_STR || c->kind == COL_JSON || c->narrow ? sizeof(uint32_t)
								      : sizeof(int64_t);
}

void col_reserve(struct column *c, size_t row)
{
	if (row < c->cap)
		return;
	c->v.i64 = xgrow(c->v.i64, cell_size(c), row + 1, &c->cap);
}

static bool fits_i32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* Narrow integer cells to 64 bits, in place from the last one down (each
 * wide cell only overwrites narrow cells at or after its own index). */
static void widen_storage(struct column *c)
{
	size_t i;

	if (!c->narrow)
		return;
	c->v.i64 = xrealloc(c->v.i64, (c->cap ? c->cap : 1) * sizeof(int64_t));
	for (i = c->len; i-- > 0;)
		c->v.i64[i] = c->v.i32[i];
	c->narrow = false;
}

/* The narrowing copy below is a run of the reader's hot path; GCC
 * vectorises it only when asked (its -O2 does not). */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("tree-vectorize")))
#endif
void col_append_i64(struct column *c, const int64_t *v, size_t n)
{
	size_t i;

	col_reserve(c, c->len + n);
	if (c->narrow) {
		/* Copy and check in one pass (room for n narrow cells is
		 * reserved); a value that does not fit makes the copy moot. */
		int32_t *d = c->v.i32 + c->len;
		uint64_t wide = 0;

		for (i = 0; i < n; i++) {
			wide |= ((uint64_t)v[i] + 0x80000000ULL) >> 32;
			d[i] = (int32_t)v[i];
		}
		if (!wide) {
			c->len += n;
			return;
		}
		widen_storage(c);
	}
	memcpy(c->v.i64 + c->len, v, n * sizeof(*v));
	c->len += n;
}

void col_mark_absent(struct column *c, size_t from, size_t to)
{
	if (from >= to)
		return;
	if (to > c->absent_cap) {
		size_t old = c->absent_cap;

		c->absent = xgrow(c->absent, 1, to, &c->absent_cap);
		memset(c->absent + old, 0, c->absent_cap - old);
	}
	memset(c->absent + from, 1, to - from);
}

/* Makes @row hold a value (the caller stores it). */
static void col_touch(struct column *c, size_t row)
{
	col_reserve(c, row);
	if (row >= c->len) {
		col_mark_absent(c, c->len, row);
		c->len = row + 1;
	} else if (c->absent && row < c->absent_cap) {
		c->absent[row] = 0;
	}
}

bool col_has(const struct column *c, size_t row)
{
	if (!c || row >= c->len)
		return false;
	return !(c->absent && row < c->absent_cap && c->absent[row]);
}

static void widen_to_f64(struct column *c)
{
	size_t i;

	widen_storage(c);
	for (i = 0; i < c->len; i++)
		c->v.f64[i] = (double)c->v.i64[i];
	c->kind = COL_F64;
}

/* Rewrites every cell as JSON text, so numbers and strings can share it. */
static void convert_to_json(struct profile *p, struct column *c)
{
	uint32_t *ids = xcalloc(c->cap ? c->cap : 1, sizeof(*ids));
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < c->len; i++) {
		char num[NUMFMT_MAX];

		if (!col_has(c, i))
			continue;
		buf_reset(&b);
		if (c->kind == COL_I64)
			buf_add(&b, num, numfmt_i64(num, col_i64(c, i)));
		else if (c->kind == COL_F64)
			buf_add(&b, num, numfmt_num(num, c->v.f64[i]));
		else
			buf_add_json_str(&b, strpool_get(p->pool, c->v.id[i]),
					 strpool_len(p->pool, c->v.id[i]));
		ids[i] = strpool_intern(p->pool, buf_str(&b), b.len);
	}
	buf_release(&b);
	free(c->v.id);
	c->v.id = ids;
	c->kind = COL_JSON;
	c->narrow = false;
}

struct column *table_col(const struct table *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->ncols; i++)
		if (t->cols[i].name == name || strcmp(t->cols[i].name, name) == 0)
			return &t->cols[i];
	return NULL;
}

static bool is_num(enum col_kind k)
{
	return k == COL_I64 || k == COL_F64;
}

struct column *table_col_get(struct profile *p, struct table *t, const char *name,
			     enum col_kind kind)
{
	struct column *c = table_col(t, name);

	if (!c) {
		t->cols = xgrow(t->cols, sizeof(*t->cols), t->ncols + 1, &t->cols_cap);
		c = &t->cols[t->ncols++];
		memset(c, 0, sizeof(*c));
		c->name = strpool_get(p->pool, strpool_intern_cstr(p->pool, name));
		c->kind = kind;
		c->narrow = kind == COL_I64;
		return c;
	}
	if (c->kind == kind || c->kind == COL_JSON || (c->kind == COL_F64 && kind == COL_I64))
		return c;
	if (c->kind == COL_I64 && kind == COL_F64)
		widen_to_f64(c);
	else if (is_num(c->kind) || is_num(kind) || kind == COL_JSON)
		convert_to_json(p, c);
	return c;
}

void col_set_i64(struct table *t, struct column *c, size_t row, int64_t v)
{
	UNUSED(t);
	if (c->narrow && !fits_i32(v))
		widen_storage(c);
	col_touch(c, row);
	if (c->kind == COL_F64)
		c->v.f64[row] = (double)v;
	else if (c->narrow)
		c->v.i32[row] = (int32_t)v;
	else
		c->v.i64[row] = v;
}

void col_set_f64(struct table *t, struct column *c, size_t row, double v)
{
	UNUSED(t);
	if (c->kind == COL_I64)
		widen_to_f64(c);
	col_touch(c, row);
	c->v.f64[row] = v;
}

void col_set_id(struct table *t, struct column *c, size_t row, uint32_t id)
{
	UNUSED(t);
	col_touch(c, row);
	c->v.id[row] = id;
}

void table_set(struct profile *p, struct table *t, size_t row, const struct attr *a)
{
	struct column *c = table_col_get(p, t, a->name, a->kind);
	struct buf b = BUF_INIT;
	char num[NUMFMT_MAX];

	if (c->kind == a->kind || (c->kind == COL_F64 && a->kind == COL_I64)) {
		if (a->kind == COL_I64)
			col_set_i64(t, c, row, a->i);
		else if (a->kind == COL_F64)
			col_set_f64(t, c, row, a->f);
		else
			col_set_id(t, c, row, strpool_intern_cstr(p->pool, a->s));
		return;
	}
	/* The column is JSON and the value is not: store its JSON text. */
	if (a->kind == COL_I64)
		buf_add(&b, num, numfmt_i64(num, a->i));
	else if (a->kind == COL_F64)
		buf_add(&b, num, numfmt_num(num, a->f));
	else
		buf_add_json_str(&b, a->s, strlen(a->s));
	col_set_id(t, c, row, strpool_intern(p->pool, buf_str(&b), b.len));
	buf_release(&b);
}

double col_num(const struct column *c, size_t row)
{
	if (!col_has(c, row))
		return NAN;
	if (c->kind == COL_I64)
		return (double)col_i64(c, row);
	if (c->kind == COL_F64)
		return c->v.f64[row];
	return NAN;
}

const char *col_text(const struct profile *p, const struct column *c, size_t row)
{
	if (!col_has(c, row) || is_num(c->kind))
		return NULL;
	return strpool_get(p->pool, c->v.id[row]);
}

size_t profile_res_add(struct profile *p, uint32_t type)
{
	p->res_type = xgrow(p->res_type, sizeof(*p->res_type), p->res.nrows + 1, &p->res_type_cap);
	p->res_type[p->res.nrows] = type;
	return p->res.nrows++;
}

size_t profile_res_add_n(struct profile *p, uint32_t type, size_t n)
{
	size_t first = p->res.nrows, i;

	p->res_type = xgrow(p->res_type, sizeof(*p->res_type), first + n, &p->res_type_cap);
	for (i = 0; i < n; i++)
		p->res_type[first + i] = type;
	p->res.nrows += n;
	return first;
}

/* Moves the kept cells of @c down in place; absent flags follow them. */
static void col_compact(struct column *c, const bool *keep, size_t n)
{
	size_t size = cell_size(c), j = 0, len = 0;
	uint8_t *absent = xmalloc(n + 1);
	char *cells = (char *)c->v.i64;
	bool any_absent = false;

	for (size_t i = 0; i < n; i++) {
		if (!keep[i])
			continue;
		absent[j] = !col_has(c, i);
		if (absent[j])
			any_absent = true;
		else {
			memmove(cells + j * size, cells + i * size, size);
			len = j + 1;
		}
		j++;
	}
	free(c->absent);
	c->absent = any_absent ? absent : NULL;
	c->absent_cap = any_absent ? len : 0;
	c->len = len;
	if (!any_absent)
		free(absent);
}

size_t profile_res_keep(struct profile *p, const bool *keep)
{
	size_t n = p->res.nrows, j = 0;

	for (size_t i = 0; i < p->res.ncols; i++)
		col_compact(&p->res.cols[i], keep, n);
	for (size_t i = 0; i < n; i++)
		if (keep[i])
			p->res_type[j++] = p->res_type[i];
	p->res.nrows = j;
	return j;
}

size_t profile_nres(const struct profile *p)
{
	return p->res.nrows;
}

const struct column *profile_attr(const struct profile *p, size_t row, const char *name,
				  const struct table **where, size_t *at)
{
	const struct column *c = table_col(&p->res, name);

	if (col_has(c, row)) {
		if (where)
			*where = &p->res;
		if (at)
			*at = row;
		return c;
	}
	c = table_col(&p->types, name);
	if (row < p->res.nrows && col_has(c, p->res_type[row])) {
		if (where)
			*where = &p->types;
		if (at)
			*at = p->res_type[row];
		return c;
	}
	return NULL;
}

const struct column *profile_col_any(const struct profile *p, const char *name)
{
	const struct column *c = table_col(&p->res, name);

	return c ? c : table_col(&p->types, name);
}

size_t profile_col_at(const struct profile *p, const struct column *c, size_t row)
{
	bool typed = c >= p->types.cols && c < p->types.cols + p->types.ncols;

	return typed ? p->res_type[row] : row;
}

const char *profile_uid(const struct profile *p, size_t row, struct buf *scratch)
{
	size_t at;
	const struct column *c = profile_attr(p, row, "uid", NULL, &at);
	char num[NUMFMT_MAX];

	buf_reset(scratch);
	if (!c)
		return "";
	if (c->kind == COL_STR)
		return col_text(p, c, at);
	if (c->kind == COL_JSON) {
		uint32_t id = c->v.id[at];

		uid_render_json(strpool_get(p->pool, id), strpool_len(p->pool, id), scratch);
	} else if (c->kind == COL_I64) {
		buf_add(scratch, num, numfmt_i64(num, col_i64(c, at)));
	} else {
		buf_add(scratch, num, numfmt_f64(num, c->v.f64[at]));
	}
	return buf_str(scratch);
}

const char *profile_subtype(const struct profile *p, size_t row)
{
	size_t at;
	const struct column *c = profile_attr(p, row, "subtype", NULL, &at);

	return c && c->kind == COL_STR ? col_text(p, c, at) : NULL;
}

void profile_group_label(struct buf *b, const char *uid, const char *subtype)
{
	buf_adds(b, uid);
	if (subtype)
		buf_addf(b, " [%s]", subtype);
}

const char *profile_group_key(const struct profile *p, size_t row, struct buf *key,
			      struct buf *scratch)
{
	const char *subtype = profile_subtype(p, row);

	buf_reset(key);
	buf_adds(key, profile_uid(p, row, scratch));
	if (subtype) {
		buf_addc(key, '\0');
		buf_adds(key, subtype);
	}
	return buf_str(key);
}

double profile_amount(const struct profile *p, size_t row)
{
	size_t at;
	const struct column *c = profile_attr(p, row, "amount", NULL, &at);

	return c ? col_num(c, at) : NAN;
}

const char *profile_units(const struct profile *p, const char *key)
{
	size_t i;

	for (i = 0; i < p->nunits; i++)
		if (strcmp(p->units[i].key, key) == 0)
			return p->units[i].value;
	return NULL;
}

const char *profile_type_key(const struct profile *p, uint32_t type)
{
	const struct column *c = table_col(&p->types, "#key");

	return c ? col_text(p, c, type) : NULL;
}

static const char *or_none(const char *s)
{
	return s && *s ? s : "(none)";
}

int profile_comparable(const struct profile *a, const char *aname, const struct profile *b,
		       const char *bname)
{
	if (strcmp(or_none(a->type), or_none(b->type)) != 0)
		return err_set(ERR_INVALID, "%s is a %s profile of %s, %s a %s profile of %s",
			       aname, or_none(a->type), or_none(a->cmd), bname, or_none(b->type),
			       or_none(b->cmd));
	if (strcmp(or_none(a->cmd), or_none(b->cmd)) != 0)
		return err_set(ERR_INVALID, "%s and %s measured different commands: %s and %s",
			       aname, bname, or_none(a->cmd), or_none(b->cmd));
	return 0;
}
