#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "util/common.h"
#include "view/mem_events.h"

enum mem_ev_kind mem_kind_of(const char *subtype)
{
	if (!subtype)
		return MEM_ALLOC;
	if (strcmp(subtype, "free") == 0 || strcmp(subtype, "delete") == 0 ||
	    strcmp(subtype, "delete[]") == 0)
		return MEM_FREE;
	if (strcmp(subtype, "realloc") == 0 || strcmp(subtype, "reallocarray") == 0)
		return MEM_REALLOC;
	return MEM_ALLOC;
}

/* A numeric field of @row wherever the layout put it; 0 when absent (or
 * text). Floating values are cut to integers, saturating. */
static int64_t field(const struct profile *p, const struct column *c, size_t row)
{
	size_t at;
	double d;

	if (!c)
		return 0;
	at = profile_col_at(p, c, row);
	if (c->kind == COL_I64)
		return col_has(c, at) ? col_i64(c, at) : 0;
	d = col_num(c, at);
	if (isnan(d))
		return 0;
	return d >= 0x1p63 ? INT64_MAX : d <= -0x1p63 ? INT64_MIN : (int64_t)d;
}

/* Addresses, sizes, pids: a negative floating value is none, 0; integers
 * keep their 64 bits as written. */
static uint64_t ufield(const struct profile *p, const struct column *c, size_t row)
{
	size_t at;
	double d;

	if (!c)
		return 0;
	at = profile_col_at(p, c, row);
	if (c->kind == COL_I64)
		return col_has(c, at) ? (uint64_t)col_i64(c, at) : 0;
	d = col_num(c, at);
	return d > 0 ? (d >= 0x1p64 ? UINT64_MAX : (uint64_t)d) : 0;
}

struct keyed {
	uint64_t order;
	size_t row;
};

static int by_order(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/* The rows in the order the events happened: a profile file groups its
 * resources by type, and the "order" column undoes that. */
static void sequence(struct mem_events *e, const struct column *order)
{
	struct keyed *k = xmalloc((e->n ? e->n : 1) * sizeof(*k));

	for (size_t i = 0; i < e->n; i++)
		k[i] = (struct keyed){order ? ufield(e->p, order, i) : 0, i};
	if (order)
		qsort(k, e->n, sizeof(*k), by_order);
	e->seq = xmalloc((e->n ? e->n : 1) * sizeof(*e->seq));
	for (size_t i = 0; i < e->n; i++)
		e->seq[i] = k[i].row;
	free(k);
}

/* The last position whose order is at most @order; SIZE_MAX for none. */
static size_t position_of(const struct mem_events *e, const struct column *order, uint64_t at)
{
	size_t lo = 0, hi = e->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ufield(e->p, order, e->seq[mid]) <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : SIZE_MAX;
}

static int by_position(const void *a, const void *b)
{
	const struct mem_image_end *x = a, *y = b;

	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* header.execs is JSON, [[pid, order], ...]: its numbers, two by two. */
static void image_ends(struct mem_events *e, const struct column *order)
{
	const struct profile *p = e->p;
	const char *text = NULL;
	uint64_t pair[2];
	size_t cap = 0;
	int k = 0;

	for (size_t i = 0; i < p->nheader_extra; i++)
		if (strcmp(p->header_extra[i].key, "execs") == 0)
			text = p->header_extra[i].value;
	for (const char *c = text && order ? text : ""; *c;) {
		char *end;
		size_t pos;

		if (*c < '0' || *c > '9') {
			c++;
			continue;
		}
		pair[k++] = strtoull(c, &end, 10);
		c = end;
		if (k < 2)
			continue;
		k = 0;
		pos = position_of(e, order, pair[1]);
		if (pos == SIZE_MAX)
			continue; /* before every event: nothing of it to end */
		XGROW(e->execs, e->nexecs + 1, cap);
		e->execs[e->nexecs++] = (struct mem_image_end){pair[0], pos};
	}
	if (e->nexecs)
		qsort(e->execs, e->nexecs, sizeof(*e->execs), by_position);
}

void mem_events_open(const struct profile *p, struct mem_events *e)
{
	const struct column *sub = table_col(&p->types, "subtype");
	const struct column *order = profile_col_any(p, "order");

	memset(e, 0, sizeof(*e));
	e->p = p;
	e->n = profile_nres(p);
	e->ordered = order != NULL;
	e->amount = profile_col_any(p, "amount");
	e->address = profile_col_any(p, "address");
	e->old = profile_col_any(p, "old-address");
	e->pid = profile_col_any(p, "pid");
	e->thread = profile_col_any(p, "thread");
	e->snapshot = profile_col_any(p, "snapshot");
	e->kind = xmalloc(p->types.nrows + 1);
	for (size_t t = 0; t < p->types.nrows; t++)
		e->kind[t] = (unsigned char)mem_kind_of(sub ? col_text(p, sub, t) : NULL);
	sequence(e, order);
	image_ends(e, order);
}

void mem_events_get(const struct mem_events *e, size_t pos, struct mem_event *out)
{
	size_t row = e->seq[pos];

	out->row = row;
	out->type = e->p->res_type[row];
	out->kind = (enum mem_ev_kind)e->kind[out->type];
	out->pid = ufield(e->p, e->pid, row);
	out->thread = ufield(e->p, e->thread, row);
	out->addr = ufield(e->p, e->address, row);
	out->old = out->kind == MEM_REALLOC ? ufield(e->p, e->old, row) : 0;
	out->amount = ufield(e->p, e->amount, row);
	out->snapshot = field(e->p, e->snapshot, row);
}

void mem_events_close(struct mem_events *e)
{
	free(e->seq);
	free(e->execs);
	free(e->kind);
	memset(e, 0, sizeof(*e));
}
