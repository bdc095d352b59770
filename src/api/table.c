/* veles_table: typed columns, owned or shown from a profile. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "util/common.h"
#include "util/error.h"
#include "util/strpool.h"

static size_t cell_size(int kind)
{
	return kind == VELES_I32 ? 4 : kind == VELES_I64 || kind == VELES_F64 ? 8 : 4;
}

veles_table *table_new(const struct strpool *pool)
{
	veles_table *t = xcalloc(1, sizeof(*t));

	if (!pool)
		pool = t->own_pool = strpool_new();
	t->pool = pool;
	return t;
}

static struct table_col *push_col(veles_table *t)
{
	t->cols = xrealloc(t->cols, (t->ncols + 1) * sizeof(*t->cols));
	memset(&t->cols[t->ncols], 0, sizeof(t->cols[0]));
	return &t->cols[t->ncols++];
}

size_t table_add(veles_table *t, const char *name, int kind)
{
	struct table_col *c = push_col(t);

	c->name = xstrdup(name);
	c->kind = kind;
	c->owns = true;
	return t->ncols - 1;
}

void table_add_view(veles_table *t, const struct table_col *from)
{
	struct table_col *c = push_col(t);

	*c = *from;
	c->name = xstrdup(from->name);
	c->owns = false;
}

/* Room for cell @row of owned column @col, cells before it absent. */
static void *cell(veles_table *t, size_t col, size_t row)
{
	struct table_col *c = &t->cols[col];
	size_t sz = cell_size(c->kind);

	if (row >= c->cap) {
		size_t cap = c->cap ? c->cap : 16;

		while (cap <= row)
			cap *= 2;
		c->data = xrealloc(c->data, cap * sz);
		c->absent = xrealloc(c->absent, cap);
		c->cap = cap;
	}
	if (row >= c->len) {
		memset(c->absent + c->len, 1, row + 1 - c->len);
		c->len = row + 1;
	}
	c->absent[row] = 0;
	if (row >= t->nrows)
		t->nrows = row + 1;
	return (char *)c->data + row * sz;
}

void table_set_i64(veles_table *t, size_t col, size_t row, int64_t v)
{
	*(int64_t *)cell(t, col, row) = v;
}

void table_set_f64(veles_table *t, size_t col, size_t row, double v)
{
	*(double *)cell(t, col, row) = v;
}

void table_set_str(veles_table *t, size_t col, size_t row, const char *s)
{
	uint32_t *id;

	if (!s) {
		/* Only the row count grows; the cell stays without a value. */
		if (row >= t->nrows)
			t->nrows = row + 1;
		return;
	}
	id = cell(t, col, row);
	*id = strpool_intern_cstr(t->own_pool, s);
}

void table_set_id(veles_table *t, size_t col, size_t row, uint32_t id)
{
	*(uint32_t *)cell(t, col, row) = id;
}

void table_finish(veles_table *t)
{
	for (size_t i = 0; i < t->ncols; i++) {
		struct table_col *c = &t->cols[i];

		if (!c->owns)
			continue;
		if (c->len < t->nrows) {
			/* cell() marks the rows before it; the last ones are marked here. */
			if (t->nrows > c->cap) {
				c->data = xrealloc(c->data, t->nrows * cell_size(c->kind));
				c->absent = xrealloc(c->absent, t->nrows);
				c->cap = t->nrows;
			}
			memset(c->absent + c->len, 1, t->nrows - c->len);
			memset((char *)c->data + c->len * cell_size(c->kind), 0,
			       (t->nrows - c->len) * cell_size(c->kind));
			c->len = t->nrows;
		}
		if (c->absent && !memchr(c->absent, 1, c->len)) {
			free(c->absent);
			c->absent = NULL;
		}
	}
}

void veles_table_free(veles_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->ncols; i++) {
		free(t->cols[i].name);
		if (t->cols[i].owns) {
			free(t->cols[i].data);
			free(t->cols[i].absent);
		}
	}
	free(t->cols);
	strpool_free(t->own_pool);
	free(t);
}

size_t veles_table_nrows(const veles_table *t)
{
	return t->nrows;
}

size_t veles_table_ncols(const veles_table *t)
{
	return t->ncols;
}

int veles_table_column(const veles_table *t, size_t i, veles_column *out)
{
	const struct table_col *c;

	if (i >= t->ncols)
		return err_set(ERR_NOTFOUND, "no column %zu: the table has %zu", i, t->ncols);
	c = &t->cols[i];
	*out = (veles_column){c->name, c->kind, c->data, c->len, c->absent, c->index};
	return 0;
}

long veles_table_find(const veles_table *t, const char *name)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (strcmp(t->cols[i].name, name) == 0)
			return (long)i;
	return -1;
}

const char *veles_table_string(const veles_table *t, uint32_t id)
{
	return id < strpool_count(t->pool) ? strpool_get(t->pool, id) : "";
}

size_t veles_table_nstrings(const veles_table *t)
{
	return strpool_count(t->pool);
}

/* Where row @row's cell of @c is, or SIZE_MAX when it has none. */
static size_t cell_of(const veles_table *t, const struct table_col *c, size_t row)
{
	size_t at;

	if (row >= t->nrows)
		return SIZE_MAX;
	at = c->index ? c->index[row] : row;
	if (at >= c->len || (c->absent && c->absent[at]))
		return SIZE_MAX;
	return at;
}

double veles_table_num(const veles_table *t, size_t col, size_t row)
{
	const struct table_col *c = col < t->ncols ? &t->cols[col] : NULL;
	size_t at = c ? cell_of(t, c, row) : SIZE_MAX;

	if (at == SIZE_MAX)
		return NAN;
	switch (c->kind) {
	case VELES_I32:
		return ((const int32_t *)c->data)[at];
	case VELES_I64:
		return (double)((const int64_t *)c->data)[at];
	case VELES_F64:
		return ((const double *)c->data)[at];
	default:
		return NAN;
	}
}

const char *veles_table_text(const veles_table *t, size_t col, size_t row)
{
	const struct table_col *c = col < t->ncols ? &t->cols[col] : NULL;
	size_t at = c ? cell_of(t, c, row) : SIZE_MAX;

	if (at == SIZE_MAX || (c->kind != VELES_STR && c->kind != VELES_JSON))
		return NULL;
	return veles_table_string(t, ((const uint32_t *)c->data)[at]);
}
