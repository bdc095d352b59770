/* Writing the resources: the canonical typed layout and the global one. */
#include <stdlib.h>
#include <string.h>

#include "profile/numfmt.h"
#include "profile/write_priv.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/strpool.h"

/* The rows of each type, in row order. */
struct groups {
	size_t *start; /* first row, or offset into @order */
	size_t *count;
	uint32_t *order; /* NULL when each type's rows are one contiguous run */
};

static void groups_build(const struct profile *p, struct groups *g)
{
	size_t nt = p->types.nrows, r, t;
	size_t *last = xcalloc(nt + 1, sizeof(*last));
	bool contiguous = true;

	g->start = xcalloc(nt + 1, sizeof(*g->start));
	g->count = xcalloc(nt + 1, sizeof(*g->count));
	g->order = NULL;
	for (r = 0; r < p->res.nrows; r++) {
		t = p->res_type[r];
		if (t >= nt)
			continue;
		if (!g->count[t])
			g->start[t] = r;
		else if (last[t] != r - 1)
			contiguous = false;
		last[t] = r;
		g->count[t]++;
	}
	if (!contiguous) {
		/* Rows interleave (a collector appending as it goes): a
		 * counting sort, costing 4 bytes a row only in this case. */
		size_t off = 0;

		g->order = xmalloc((p->res.nrows + 1) * sizeof(*g->order));
		for (t = 0; t < nt; t++) {
			g->start[t] = off;
			last[t] = off;
			off += g->count[t];
		}
		for (r = 0; r < p->res.nrows; r++)
			if ((t = p->res_type[r]) < nt)
				g->order[last[t]++] = (uint32_t)r;
	}
	free(last);
}

static void groups_release(struct groups *g)
{
	free(g->start);
	free(g->count);
	free(g->order);
}

static inline size_t group_row(const struct groups *g, size_t t, size_t k)
{
	return g->order ? g->order[g->start[t] + k] : g->start[t] + k;
}

static inline char *put_int(char *d, int64_t x)
{
	return d + (NUMFMT_SMALL_OK(x) ? numfmt_small(d, (uint32_t)x) : numfmt_i64(d, x));
}

/* Values [k, end) of a dense integer column, each after a separator (the
 * array's first value is written before). One loop per storage width, so
 * the width is not tested per value. */
static char *put_ints(char *d, const struct column *c, size_t base, size_t k, size_t end,
		      const char *sep, size_t seplen)
{
	if (c->narrow) {
		d = numfmt_i32_list(d, c->v.i32 + base + k, end - k, sep, seplen);
	} else {
		const int64_t *v = c->v.i64 + base;

		for (; k < end; k++) {
			memcpy(d, sep, 2);
			d = put_int(d + seplen, v[k]);
		}
	}
	return d;
}

static void write_array(struct jw *w, const struct profile *p, const struct column *c,
			const struct groups *g, size_t t)
{
	const char *sep = w->indent ? ", " : ",";
	size_t k, n = g->count[t], seplen = strlen(sep);

	buf_addc(w->b, '[');
	if (!g->order && c->kind == COL_I64 && !c->absent && g->start[t] + n <= c->len) {
		/* The hot path: a dense integer column. */
		const size_t base = g->start[t];

		for (k = 0; k < n;) {
			/* Room for a block of numbers at once, then no checks. */
			size_t end = k + 512 < n ? k + 512 : n;
			struct buf *b = w->b;
			char *d;

			buf_grow(b, (end - k) * (NUMFMT_MAX + 2));
			d = b->data + b->len;
			if (k == 0)
				d = put_int(d, c->narrow ? c->v.i32[base] : c->v.i64[base]), k++;
			d = put_ints(d, c, base, k, end, sep, seplen);
			k = end;
			b->len = (size_t)(d - b->data);
			b->data[b->len] = '\0';
			jw_maybe_flush(w);
		}
	} else {
		for (k = 0; k < n; k++) {
			if (k)
				buf_adds(w->b, sep);
			jw_cell(w, p, c, group_row(g, t, k));
			jw_maybe_flush(w);
		}
	}
	buf_addc(w->b, ']');
}

static const char *type_key(const struct profile *p, size_t t, struct buf *tmp)
{
	const char *key = profile_type_key(p, (uint32_t)t);

	if (key)
		return key;
	buf_reset(tmp);
	buf_addf(tmp, "type#%zu", t);
	return buf_str(tmp);
}

static bool group_has(const struct column *c, const struct groups *g, size_t t)
{
	size_t k;

	for (k = 0; k < g->count[t]; k++)
		if (col_has(c, group_row(g, t, k)))
			return true;
	return false;
}

/* The persistent attributes of type @t as members of an open object. */
static void write_persistent(struct jw *w, const struct profile *p, size_t t)
{
	size_t i;

	for (i = 0; i < p->types.ncols; i++) {
		const struct column *c = &p->types.cols[i];

		if (strcmp(c->name, "#key") == 0 || !col_has(c, t))
			continue;
		jw_key(w, c->name);
		jw_cell(w, p, c, t);
	}
}

static void write_type_map(struct jw *w, const struct profile *p, struct buf *tmp)
{
	size_t t;

	jw_key(w, "resource_type_map");
	jw_open(w, '{');
	for (t = 0; t < p->types.nrows; t++) {
		jw_key(w, type_key(p, t, tmp));
		jw_open(w, '{');
		write_persistent(w, p, t);
		jw_close(w, '}');
	}
	jw_close(w, '}');
}

void write_typed(struct jw *w, const struct profile *p)
{
	struct buf tmp = BUF_INIT;
	struct groups g;
	size_t t, i;

	groups_build(p, &g);
	jw_key(w, "resources");
	jw_open(w, '{');
	for (t = 0; t < p->types.nrows; t++) {
		if (!g.count[t])
			continue;
		jw_key(w, type_key(p, t, &tmp));
		jw_open(w, '{');
		for (i = 0; i < p->res.ncols; i++) {
			const struct column *c = &p->res.cols[i];

			if (!group_has(c, &g, t))
				continue;
			jw_key(w, c->name);
			write_array(w, p, c, &g, t);
		}
		jw_close(w, '}');
	}
	jw_close(w, '}');
	groups_release(&g);
	write_type_map(w, p, &tmp);
	buf_release(&tmp);
}

/*
 * Compact global layout, the time collector's: every resource of a type
 * repeats the same persistent members, so each type's text and each
 * column's key are serialised once and copied per row. A million-row
 * profile spent most of its save re-escaping the same few strings.
 */
struct global_rows {
	size_t *toff, *koff; /* type t's text is texts[toff[t]..toff[t+1]), keys alike */
	struct buf texts, keys;
	size_t row_max; /* the most bytes a row of numbers can take */
	int *hint;	/* numfmt_f64_hint's state, by column */
};

static void global_rows_init(struct global_rows *g, const struct profile *p)
{
	size_t nt = p->types.nrows, nc = p->res.ncols, t, i, tmax = 0;
	struct jw tw = {.b = &g->texts, .fd = -1};

	memset(g, 0, sizeof(*g));
	g->toff = xcalloc(nt + 1, sizeof(*g->toff));
	g->koff = xcalloc(nc + 1, sizeof(*g->koff));
	g->hint = xcalloc(nc + 1, sizeof(*g->hint));
	for (t = 0; t < nt; t++) {
		tw.first = true;
		write_persistent(&tw, p, t);
		g->toff[t + 1] = g->texts.len;
		if (g->toff[t + 1] - g->toff[t] > tmax)
			tmax = g->toff[t + 1] - g->toff[t];
	}
	for (i = 0; i < nc; i++) {
		buf_add_json_str(&g->keys, p->res.cols[i].name, strlen(p->res.cols[i].name));
		buf_addc(&g->keys, ':');
		g->koff[i + 1] = g->keys.len;
	}
	g->row_max = 3 + tmax + g->keys.len + nc * (NUMFMT_MAX + 1);
}

static void global_rows_release(struct global_rows *g)
{
	buf_release(&g->texts);
	buf_release(&g->keys);
	free(g->toff);
	free(g->koff);
	free(g->hint);
}

/* Cell @r of numeric column @i at @d (NUMFMT_MAX bytes of room). */
static size_t global_num(struct global_rows *g, const struct column *c, size_t i, size_t r, char *d)
{
	int64_t x;

	if (c->kind == COL_F64 && !numfmt_is_whole(c->v.f64[r]))
		return numfmt_f64_hint(d, c->v.f64[r], &g->hint[i]);
	x = c->kind == COL_F64 ? (int64_t)c->v.f64[r] : col_i64(c, r);

	return NUMFMT_SMALL_OK(x) ? numfmt_small(d, (uint32_t)x) : numfmt_i64(d, x);
}

/* One resource as {...}, numbers formatted in place in reserved room. */
static void global_row(struct jw *w, const struct profile *p, struct global_rows *g, size_t r)
{
	size_t nt = p->types.nrows, t = p->res_type[r], i, len;
	struct buf *b = w->b;
	bool first = true;
	char *d;

	buf_grow(b, g->row_max);
	d = b->data + b->len;
	if (r)
		*d++ = ',';
	*d++ = '{';
	if (t < nt && (len = g->toff[t + 1] - g->toff[t])) {
		memcpy(d, g->texts.data + g->toff[t], len);
		d += len;
		first = false;
	}
	for (i = 0; i < p->res.ncols; i++) {
		const struct column *c = &p->res.cols[i];

		if (!col_has(c, r))
			continue;
		if (!first)
			*d++ = ',';
		first = false;
		len = g->koff[i + 1] - g->koff[i];
		memcpy(d, g->keys.data + g->koff[i], len);
		d += len;
		if (c->kind == COL_I64 || c->kind == COL_F64) {
			d += global_num(g, c, i, r, d);
			continue;
		}
		/* Text cells go through the buffer, which may move. */
		b->len = (size_t)(d - b->data);
		jw_cell(w, p, c, r);
		buf_grow(b, g->row_max);
		d = b->data + b->len;
	}
	*d++ = '}';
	b->len = (size_t)(d - b->data);
	b->data[b->len] = '\0';
}

static void write_global_rows(struct jw *w, const struct profile *p)
{
	struct global_rows g;
	size_t r;

	global_rows_init(&g, p);
	for (r = 0; r < p->res.nrows; r++) {
		global_row(w, p, &g, r);
		jw_maybe_flush(w);
	}
	w->first = p->res.nrows == 0;
	global_rows_release(&g);
}

void write_global(struct jw *w, const struct profile *p)
{
	size_t r, i;

	jw_key(w, "global");
	jw_open(w, '{');
	if (p->has_timestamp) {
		jw_key(w, "timestamp");
		jw_f64(w, p->timestamp);
	}
	jw_key(w, "resources");
	jw_open(w, '[');
	if (!w->indent) {
		write_global_rows(w, p);
		r = p->res.nrows;
	} else {
		r = 0;
	}
	for (; r < p->res.nrows; r++) {
		uint32_t t = p->res_type[r];

		jw_key(w, NULL);
		jw_open(w, '{');
		write_persistent(w, p, t);
		for (i = 0; i < p->res.ncols; i++) {
			const struct column *c = &p->res.cols[i];

			if (!col_has(c, r))
				continue;
			jw_key(w, c->name);
			jw_cell(w, p, c, r);
		}
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_close(w, '}');
}
