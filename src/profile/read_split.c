/*
 * A long list of resources, or object of typed resources, read on two
 * threads. The second thread starts at an element boundary found near the
 * middle of the unread input and reads the rest of the container into a
 * profile of its own; this thread reads
 * up to that boundary. Only when it lands exactly there (so the boundary
 * was one of this list's, not text inside a string or a nested value), the
 * second half read without error, and its attributes can be rebuilt
 * exactly as they were read, the second profile's types and rows are
 * appended; otherwise this thread reads on as if nothing had happened, so
 * the result and any error message are those of one thread.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "profile/json_sax.h"
#include "profile/profile_priv.h"
#include "profile/read_priv.h"
#include "util/common.h"

size_t profile_split_bytes = 8u << 20;
unsigned long profile_split_merges;

/* How far past the middle a boundary is looked for. */
#define SPLIT_SEARCH (1u << 20)

struct split {
	pthread_t thread;
	struct reader r;   /* the second half's */
	const char *at;	   /* just after the '}' that ends the first half */
	const char *close; /* the closing bracket, once the second half read to it */
	char kind;	   /* '[' a list of resource dicts, '{' typed resources */
	int ret;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* Just after the first '}' in [from, lim) that a ',' and @next follow
 * (blanks between): a '{' starting a list's next dict, a '"' an object's
 * next key. NULL when there is none. */
static const char *boundary(const char *from, const char *lim, char next)
{
	const char *q = from, *e;

	while (q < lim && (q = memchr(q, '}', (size_t)(lim - q))) != NULL) {
		e = ++q;
		while (e < lim && is_blank(*e))
			e++;
		if (e >= lim || *e++ != ',')
			continue;
		while (e < lim && is_blank(*e))
			e++;
		if (e < lim && *e == next)
			return q;
	}
	return NULL;
}

static void *second_half(void *arg)
{
	struct split *s = arg;

	s->ret = s->kind == '[' ? read_res_list(&s->r, -1) : read_typed_resources(&s->r);
	if (s->ret == 0)
		s->close = s->r.j.p - 1;
	return NULL;
}

static void split_free(struct split *s)
{
	jsax_release(&s->r.j);
	reader_release(&s->r);
	profile_free(s->r.p);
	free(s);
}

void split_start(struct reader *r, char kind)
{
	const char *lo, *hi, *at;
	struct split *s;

	if (r->no_split || r->split || !jsax_split_room(&r->j, &lo, &hi) ||
	    (size_t)(hi - lo) < profile_split_bytes)
		return;
	at = lo + (hi - lo) / 2;
	at = boundary(at, (size_t)(hi - at) > SPLIT_SEARCH ? at + SPLIT_SEARCH : hi,
		      kind == '[' ? '{' : '"');
	if (!at)
		return;
	s = xcalloc(1, sizeof(*s));
	s->at = at;
	s->kind = kind;
	s->r.p = profile_new();
	s->r.no_split = true;
	jsax_init_split(&s->r.j, &r->j, at, kind);
	if (pthread_create(&s->thread, NULL, second_half, s) != 0) {
		split_free(s);
		return;
	}
	r->split = s;
	r->split_at = at;
}

/* Whether column @c of the second profile holds values as they were read
 * (text, or numbers) and joins @dst's column of that name without a
 * conversion a single reader would not have made. */
static bool col_mergeable(const struct table *dst, const struct column *c, bool num_only)
{
	const struct column *d = table_col(dst, c->name);
	bool num = c->kind == COL_I64 || c->kind == COL_F64;

	if (c->kind == COL_JSON || (num_only && !num))
		return false;
	if (!d)
		return true;
	return num ? d->kind == COL_I64 || d->kind == COL_F64 : d->kind == COL_STR;
}

/* Typed resources name their types by key only: the second profile's
 * types table must hold nothing else. */
static bool mergeable(const struct profile *p, const struct profile *q, char kind)
{
	size_t i;

	if (kind == '{' &&
	    (q->types.ncols > 1 || (q->types.ncols && strcmp(q->types.cols[0].name, "#key") != 0)))
		return false;
	for (i = 0; i < q->types.ncols; i++)
		if (strcmp(q->types.cols[i].name, "#key") != 0 &&
		    !col_mergeable(&p->types, &q->types.cols[i], false))
			return false;
	for (i = 0; i < q->res.ncols; i++)
		if (!col_mergeable(&p->res, &q->res.cols[i], true))
			return false;
	return true;
}

/* Type @t's persistent attributes, as they were read, into @a. */
static size_t type_attrs(const struct profile *q, size_t t, struct attr *a)
{
	size_t i, n = 0;

	for (i = 0; i < q->types.ncols; i++) {
		const struct column *c = &q->types.cols[i];

		if (strcmp(c->name, "#key") == 0 || !col_has(c, t))
			continue;
		a[n] = (struct attr){.name = c->name, .kind = c->kind};
		if (c->kind == COL_I64)
			a[n].i = col_i64(c, t);
		else if (c->kind == COL_F64)
			a[n].f = c->v.f64[t];
		else
			a[n].s = col_text(q, c, t);
		n++;
	}
	return n;
}

/* Moves the runs of rows of @q to @p, typed by @map. */
static void merge_rows(struct profile *p, struct profile *q, const uint32_t *map)
{
	size_t r, e;

	p->res_type = xgrow(p->res_type, sizeof(*p->res_type), p->res.nrows + q->res.nrows + 1,
			    &p->res_type_cap);
	for (r = 0; r < q->res.nrows; r = e) {
		for (e = r + 1; e < q->res.nrows && q->res_type[e] == q->res_type[r]; e++)
			;
		profile_res_add_n(p, map[q->res_type[r]], e - r);
	}
	free(q->res_type);
	q->res_type = NULL;
	q->res_type_cap = 0;
}

/* Moves the cells of @q's numeric column @c to rows @base.. of @p, then
 * frees them: the two profiles are never both whole in memory. */
static void merge_col(struct profile *p, struct column *c, size_t base)
{
	struct column *d = table_col_get(p, &p->res, c->name, c->kind);
	size_t r = 0;

	if (c->len)
		col_reserve(d, base + c->len - 1);
	if (c->kind == COL_I64 && d->kind == COL_I64 && !c->absent && d->len == base && c->narrow &&
	    d->narrow) {
		/* Both halves kept 32 bits: one copy. */
		memcpy(d->v.i32 + base, c->v.i32, c->len * sizeof(int32_t));
		d->len = base + c->len;
		r = c->len;
	} else if (c->kind == COL_I64 && d->kind == COL_I64 && !c->absent && d->len == base) {
		/* Dense integers (the typed layout's arrays): appended a block
		 * at a time, as the parser does. */
		int64_t block[1024];
		size_t k;

		for (r = 0; r < c->len; r += k) {
			for (k = 0; k < ARRAY_SIZE(block) && r + k < c->len; k++)
				block[k] = col_i64(c, r + k);
			col_append_i64(d, block, k);
		}
		r = c->len;
	}
	for (; r < c->len; r++) {
		if (!col_has(c, r))
			continue;
		if (c->kind == COL_F64)
			col_set_f64(&p->res, d, base + r, c->v.f64[r]);
		else
			col_set_i64(&p->res, d, base + r, col_i64(c, r));
	}
	free(c->v.i64);
	free(c->absent);
	c->v.i64 = NULL;
	c->absent = NULL;
	c->len = c->cap = c->absent_cap = 0;
}

/* Appends @q's rows to @p, their types added in the order @q met them:
 * by their attributes, or for typed resources (@kind '{') by their key. */
static void merge(struct profile *p, struct profile *q, char kind)
{
	struct attr *a = xcalloc(q->types.ncols + 1, sizeof(*a));
	uint32_t *map = xcalloc(q->types.nrows + 1, sizeof(*map));
	size_t base = p->res.nrows, t, i;

	for (t = 0; t < q->types.nrows; t++) {
		const char *key = kind == '{' ? profile_type_key(q, (uint32_t)t) : NULL;

		map[t] = key ? profile_type_by_key(p, key, strlen(key))
			     : profile_type_add(p, a, type_attrs(q, t, a));
	}
	merge_rows(p, q, map);
	for (i = 0; i < q->res.ncols; i++)
		merge_col(p, &q->res.cols[i], base);
	free(map);
	free(a);
}

void split_finish(struct reader *r, bool at_boundary)
{
	struct split *s = r->split;

	r->split = NULL;
	pthread_join(s->thread, NULL);
	if (at_boundary && r->j.p == s->at && s->ret == 0 && mergeable(r->p, s->r.p, s->kind)) {
		merge(r->p, s->r.p, s->kind);
		jsax_jump(&r->j, s->close, s->r.j.line - 1, s->r.j.line_start);
		profile_split_merges++;
	}
	split_free(s);
}
