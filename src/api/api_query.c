/* libveles: selecting resources by conditions and aggregating groups. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/where.h"
#include "api/api.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/strmap.h"

enum agg { AGG_COUNT, AGG_SUM, AGG_MEAN, AGG_MEDIAN, AGG_MIN, AGG_MAX };

static const char *const agg_names[] = {"count", "sum", "mean", "median", "min", "max"};

struct veles_query {
	struct where *w;
	size_t nw;
	bool any;
	char *group_by, *of;
	enum agg agg;
};

int veles_query_new(veles_query **out)
{
	*out = xcalloc(1, sizeof(**out));
	return 0;
}

void veles_query_free(veles_query *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->nw; i++)
		where_release(&q->w[i]);
	free(q->w);
	free(q->group_by);
	free(q->of);
	free(q);
}

int veles_query_where(veles_query *q, const char *cond)
{
	struct where w;
	int ret = where_parse(cond ? cond : "", "where", &w);

	if (ret < 0) {
		where_release(&w);
		return ret;
	}
	q->w = xrealloc(q->w, (q->nw + 1) * sizeof(*q->w));
	q->w[q->nw++] = w;
	return 0;
}

void veles_query_any(veles_query *q, int any)
{
	q->any = any != 0;
}

int veles_query_group_by(veles_query *q, const char *field, const char *agg, const char *of)
{
	size_t i;

	if (!field || !*field)
		return err_set(ERR_INVALID, "group_by wants a field (uid, subtype, ...)");
	for (i = 0; i < ARRAY_SIZE(agg_names); i++)
		if (strcmp(agg ? agg : "sum", agg_names[i]) == 0)
			break;
	if (i == ARRAY_SIZE(agg_names))
		return err_set(ERR_INVALID,
			       "unknown aggregate '%s': use count, sum, mean, median, min or max",
			       agg);
	free(q->group_by);
	free(q->of);
	q->group_by = xstrdup(field);
	q->of = xstrdup(of ? of : "amount");
	q->agg = (enum agg)i;
	return 0;
}

/* Which rows of @p the conditions select; their count into *@n. */
static bool *select_rows(const veles_query *q, const struct profile *p, size_t *n)
{
	size_t nres = profile_nres(p);
	bool *keep = xmalloc(nres + 1);
	struct buf scratch = BUF_INIT;

	*n = 0;
	for (size_t r = 0; r < nres; r++) {
		size_t i;

		for (i = 0; i < q->nw; i++)
			if (where_holds(&q->w[i], p, r, &scratch) == q->any)
				break;
		/* all: no condition failed; any: one held (no condition: all) */
		keep[r] = q->nw == 0 || (q->any ? i < q->nw : i == q->nw);
		*n += keep[r];
	}
	buf_release(&scratch);
	return keep;
}

/* The selected rows of every column of @all, copied. */
static veles_table *copy_rows(const veles_table *all, const bool *keep, size_t nkeep)
{
	veles_table *t = table_new(all->pool);

	for (size_t c = 0; c < all->ncols; c++) {
		const struct table_col *from = &all->cols[c];
		/* Narrow integers widen: the copy's cells are 64-bit. */
		size_t col =
			table_add(t, from->name, from->kind == VELES_I32 ? VELES_I64 : from->kind);
		size_t row = 0;

		for (size_t r = 0; r < all->nrows; r++) {
			size_t at = from->index ? from->index[r] : r;
			bool has = at < from->len && !(from->absent && from->absent[at]);

			if (!keep[r])
				continue;
			if (has && from->kind == VELES_I32)
				table_set_i64(t, col, row, ((const int32_t *)from->data)[at]);
			else if (has && from->kind == VELES_I64)
				table_set_i64(t, col, row, ((const int64_t *)from->data)[at]);
			else if (has && from->kind == VELES_F64)
				table_set_f64(t, col, row, ((const double *)from->data)[at]);
			else if (has)
				table_set_id(t, col, row, ((const uint32_t *)from->data)[at]);
			row++;
		}
	}
	t->nrows = nkeep;
	table_finish(t);
	return t;
}

struct group {
	double *v;
	size_t n, cap;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double aggregate(enum agg agg, struct group *g)
{
	double acc = 0;

	if (agg == AGG_COUNT)
		return (double)g->n;
	if (g->n == 0)
		return NAN;
	if (agg == AGG_MEDIAN) {
		qsort(g->v, g->n, sizeof(*g->v), cmp_double);
		return g->n % 2 ? g->v[g->n / 2] : (g->v[g->n / 2 - 1] + g->v[g->n / 2]) / 2;
	}
	acc = agg == AGG_MIN ? INFINITY : agg == AGG_MAX ? -INFINITY : 0;
	for (size_t i = 0; i < g->n; i++)
		acc = agg == AGG_MIN   ? fmin(acc, g->v[i])
		      : agg == AGG_MAX ? fmax(acc, g->v[i])
				       : acc + g->v[i];
	return agg == AGG_MEAN ? acc / (double)g->n : acc;
}

/* A row's value of @field as group text ("(none)" without one). */
static const char *group_text(const struct profile *p, size_t row, const char *field,
			      struct buf *scratch)
{
	const struct column *c;
	size_t at;
	const char *s;

	if (strcmp(field, "uid") == 0)
		return profile_uid(p, row, scratch);
	c = profile_attr(p, row, field, NULL, &at);
	if (!c || !col_has(c, at))
		return "(none)";
	if (c->kind == COL_I64 || c->kind == COL_F64) {
		buf_reset(scratch);
		buf_addf(scratch, "%.15g", col_num(c, at));
		return buf_str(scratch);
	}
	s = col_text(p, c, at);
	return s ? s : "(none)";
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The groups' numbers in the order of their keys. */
static size_t *group_order(const struct strmap *ids, char **keys, size_t ng)
{
	char **sorted = xmalloc((ng + 1) * sizeof(*sorted));
	size_t *order = xmalloc((ng + 1) * sizeof(*order));

	for (size_t i = 0; i < ng; i++)
		sorted[i] = keys[i];
	qsort(sorted, ng, sizeof(*sorted), cmp_key);
	for (size_t i = 0; i < ng; i++)
		order[i] = strmap_get(ids, sorted[i]);
	free(sorted);
	return order;
}

static veles_table *group_rows(const veles_query *q, const struct profile *p, const bool *keep)
{
	struct strmap ids = {0};
	struct group *g = NULL;
	char **keys = NULL;
	size_t ng = 0, cap = 0, *order;
	struct buf scratch = BUF_INIT;
	const struct column *of = profile_col_any(p, q->of);
	veles_table *t = table_new(NULL);

	for (size_t r = 0; r < profile_nres(p); r++) {
		const char *k;
		bool added;
		size_t i;
		double v;

		if (!keep[r])
			continue;
		k = group_text(p, r, q->group_by, &scratch);
		i = strmap_intern(&ids, k, &added);
		if (added) {
			g = xgrow(g, sizeof(*g), ng + 1, &cap);
			keys = xrealloc(keys, (ng + 1) * sizeof(*keys));
			memset(&g[ng], 0, sizeof(*g));
			keys[ng++] = xstrdup(k);
		}
		v = of ? col_num(of, profile_col_at(p, of, r)) : NAN;
		if (q->agg == AGG_COUNT || isnan(v)) {
			/* count: every selected row; the others: rows with a number */
			if (q->agg == AGG_COUNT)
				g[i].n++;
			continue;
		}
		g[i].v = xgrow(g[i].v, sizeof(double), g[i].n + 1, &g[i].cap);
		g[i].v[g[i].n++] = v;
	}
	order = group_order(&ids, keys, ng);
	table_add(t, q->group_by, VELES_STR);
	table_add(t, "count", VELES_I64);
	if (q->agg != AGG_COUNT)
		table_add(t, agg_names[q->agg], VELES_F64);
	for (size_t row = 0; row < ng; row++) {
		struct group *gr = &g[order[row]];

		table_set_str(t, 0, row, keys[order[row]]);
		table_set_i64(t, 1, row, (int64_t)gr->n);
		if (q->agg != AGG_COUNT)
			table_set_f64(t, 2, row, aggregate(q->agg, gr));
	}
	for (size_t i = 0; i < ng; i++) {
		free(g[i].v);
		free(keys[i]);
	}
	free(g);
	free(keys);
	free(order);
	strmap_free(&ids);
	buf_release(&scratch);
	table_finish(t);
	return t;
}

int veles_query_run(const veles_query *q, veles_profile *h, veles_table **out)
{
	size_t nkeep;
	bool *keep = select_rows(q, h->p, &nkeep);

	*out = q->group_by ? group_rows(q, h->p, keep)
			   : copy_rows(veles_profile_resources(h), keep, nkeep);
	free(keep);
	return 0;
}
