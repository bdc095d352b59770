/*
 * The data of the heapmap view (heapmap.h): a memory profile's blocks with
 * the snapshots they lived through, laid out over the used address ranges,
 * and one frame of cell levels per snapshot.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/heapmap.h"
#include "cli/mem_execs.h"
#include "profile/profile.h"
#include "util/common.h"

#define GAP (1u << 20) /* address gaps wider than this are left out */

/* An allocation or release of the chosen process, in the run's order. */
struct hm_ev {
	uint64_t addr, size, pos;
	int64_t snap;
	size_t image; /* how many of the process's execs came before it */
	bool alloc;
};

/* The chosen process's execs (header.execs): the order of each image's
 * last event, ascending, and the snapshot it fell in, which ends the
 * image's blocks still live. */
struct hm_execs {
	uint64_t *order;
	int64_t *end;
	size_t n;
};

/* A numeric field of @row wherever the layout put it; 0 when absent. */
static int64_t field(const struct profile *p, const struct column *c, size_t row)
{
	size_t at = c ? profile_col_at(p, c, row) : 0;

	if (!c || !col_has(c, at))
		return 0;
	return c->kind == COL_I64 ? col_i64(c, at) : (int64_t)col_num(c, at);
}

static const struct profile *order_p;
static const struct column *order_c;

static int by_order(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int64_t ox = field(order_p, order_c, x), oy = field(order_p, order_c, y);

	if (ox != oy)
		return ox < oy ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The rows in the order the events happened ("order", else as stored). */
static size_t *event_order(const struct profile *p, size_t n)
{
	size_t *seq = xmalloc((n ? n : 1) * sizeof(*seq));

	for (size_t i = 0; i < n; i++)
		seq[i] = i;
	order_p = p;
	order_c = profile_col_any(p, "order");
	if (order_c)
		qsort(seq, n, sizeof(*seq), by_order);
	return seq;
}

enum ev_kind { K_ALLOC, K_FREE, K_REALLOC };

static enum ev_kind kind_of(const char *sub)
{
	if (sub && (!strcmp(sub, "free") || !strcmp(sub, "delete") || !strcmp(sub, "delete[]")))
		return K_FREE;
	if (sub && (!strcmp(sub, "realloc") || !strcmp(sub, "reallocarray")))
		return K_REALLOC;
	return K_ALLOC;
}

/* Appends @e, growing the array to the next power of two when full. */
static void push(struct hm_ev **ev, size_t *n, struct hm_ev e)
{
	if (*n == 0 || (*n & (*n - 1)) == 0)
		*ev = xrealloc(*ev, (*n ? *n * 2 : 1) * sizeof(**ev));
	(*ev)[(*n)++] = e;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The execs of process @pid; none where the events' order is unknown. */
static void read_execs(const struct profile *p, uint64_t pid, struct hm_execs *x)
{
	struct mem_exec *ex;
	size_t n = profile_col_any(p, "order") ? mem_execs(p, &ex) : 0;

	x->order = xmalloc((n ? n : 1) * sizeof(*x->order));
	x->end = xmalloc((n ? n : 1) * sizeof(*x->end));
	x->n = 0;
	for (size_t i = 0; i < n; i++)
		if (ex[i].pid == pid)
			x->order[x->n++] = ex[i].order;
	if (n)
		free(ex);
	qsort(x->order, x->n, sizeof(*x->order), by_u64);
	for (size_t i = 0; i < x->n; i++)
		x->end[i] = INT64_MAX;
}

/* The events of the first process to allocate; a realloc is a release of
 * its old block then an allocation of the new one. */
static size_t read_events(const struct profile *p, struct heapmap *h, struct hm_ev **out,
			  struct hm_execs *x)
{
	const struct column *sub = table_col(&p->types, "subtype"),
			    *pid = profile_col_any(p, "pid");
	const struct column *addr = profile_col_any(p, "address"),
			    *old = profile_col_any(p, "old-address");
	const struct column *amount = profile_col_any(p, "amount"),
			    *snap = profile_col_any(p, "snapshot");
	const struct column *order = profile_col_any(p, "order");
	size_t nres = profile_nres(p), n = 0, *seq = event_order(p, nres), image = 0;

	*out = NULL;
	if (nres)
		h->pid = (uint64_t)field(p, pid, seq[0]);
	read_execs(p, h->pid, x);
	for (size_t i = 0; i < nres; i++) {
		size_t row = seq[i];
		enum ev_kind k = kind_of(sub ? col_text(p, sub, p->res_type[row]) : NULL);
		struct hm_ev e = {(uint64_t)field(p, addr, row), 0, 2 * i,
				  field(p, snap, row),		 0, false};

		if ((uint64_t)field(p, pid, row) != h->pid)
			continue;
		while (image < x->n && x->order[image] < (uint64_t)field(p, order, row))
			image++;
		e.image = image;
		if (image < x->n)
			x->end[image] = e.snap;
		if (k != K_ALLOC) {
			struct hm_ev f = e;

			f.addr = k == K_FREE ? e.addr : (uint64_t)field(p, old, row);
			if (f.addr)
				push(out, &n, f);
		}
		e.alloc = true;
		e.size = (uint64_t)field(p, amount, row);
		e.pos++;
		if (k != K_FREE && e.addr)
			push(out, &n, e);
	}
	free(seq);
	return n;
}

static int by_addr(const void *a, const void *b)
{
	const struct hm_ev *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Each allocation with the snapshot of its release: sorted by address and
 * time, a release ends the allocation just before it at its address. */
static void pair_blocks(struct heapmap *h, struct hm_ev *ev, size_t n, const struct hm_execs *x)
{
	if (n)
		qsort(ev, n, sizeof(*ev), by_addr);
	h->blocks = xcalloc(n ? n : 1, sizeof(*h->blocks));
	for (size_t i = 0; i < n; i++) {
		struct hm_block *b;

		if (!ev[i].alloc)
			continue;
		b = &h->blocks[h->nblocks++];
		b->addr = ev[i].addr;
		b->size = ev[i].size ? ev[i].size : 1;
		b->from = ev[i].snap;
		b->to = ev[i].image < x->n ? x->end[ev[i].image] : INT64_MAX;
		if (i + 1 < n && ev[i + 1].addr == ev[i].addr && ev[i + 1].snap < b->to)
			b->to = ev[i + 1].snap;
	}
}

static void snapshot_range(struct heapmap *h, const struct hm_ev *ev, size_t n)
{
	h->first = n ? ev[0].snap : 0;
	h->last = h->first;
	for (size_t i = 0; i < n; i++) {
		h->first = ev[i].snap < h->first ? ev[i].snap : h->first;
		h->last = ev[i].snap > h->last ? ev[i].snap : h->last;
	}
}

/* The used address ranges: blocks sorted by address, merged across gaps up
 * to GAP, laid end to end. */
static void address_ranges(struct heapmap *h)
{
	for (size_t i = 0; i < h->nblocks; i++) {
		const struct hm_block *b = &h->blocks[i];
		struct hm_range *r = h->nranges ? &h->ranges[h->nranges - 1] : NULL;

		if (r && b->addr <= r->hi + GAP) {
			if (b->addr + b->size > r->hi)
				r->hi = b->addr + b->size;
			continue;
		}
		h->ranges = xrealloc(h->ranges, (h->nranges + 1) * sizeof(*h->ranges));
		h->ranges[h->nranges++] = (struct hm_range){b->addr, b->addr + b->size, 0};
	}
	h->span = 0;
	for (size_t i = 0; i < h->nranges; i++) {
		h->ranges[i].start = h->span;
		h->span += h->ranges[i].hi - h->ranges[i].lo;
	}
}

int heapmap_build(const struct profile *p, struct heapmap *h)
{
	struct hm_execs x;
	struct hm_ev *ev;
	size_t n;

	memset(h, 0, sizeof(*h));
	if (!p->type || strcmp(p->type, "memory") != 0)
		return err_set(ERR_INVALID, "the heapmap view needs a memory profile, not %s",
			       p->type ? p->type : "an untyped one");
	n = read_events(p, h, &ev, &x);
	snapshot_range(h, ev, n);
	pair_blocks(h, ev, n, &x);
	free(ev);
	free(x.order);
	free(x.end);
	address_ranges(h);
	return 0;
}

/* Where @addr lies in the ranges laid end to end. */
static uint64_t offset_of(const struct heapmap *h, uint64_t addr)
{
	size_t lo = 0, hi = h->nranges;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (h->ranges[mid].lo <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return h->ranges[lo].start + (addr - h->ranges[lo].lo);
}

void heapmap_layout(struct heapmap *h, int cols, int rows)
{
	uint64_t cells = (uint64_t)(cols > 1 ? cols : 1) * (uint64_t)(rows > 1 ? rows : 1);

	h->cols = cols > 1 ? cols : 1;
	h->cell = (h->span + cells - 1) / cells;
	h->cell = h->cell < 16 ? 16 : (h->cell + 15) & ~(uint64_t)15;
	h->rows =
		(int)((h->span + h->cell * (uint64_t)h->cols - 1) / (h->cell * (uint64_t)h->cols));
	if (h->rows < 1)
		h->rows = 1;
}

/* Adds (or with @sign -1 removes) @b's bytes to the cells it covers. */
static void cover(const struct heapmap *h, uint64_t *fill, const struct hm_block *b, int sign)
{
	uint64_t at = offset_of(h, b->addr), end = at + b->size;
	size_t ncells = (size_t)h->cols * (size_t)h->rows;

	for (uint64_t c = at / h->cell; c * h->cell < end && c < ncells; c++) {
		uint64_t lo = c * h->cell > at ? c * h->cell : at;
		uint64_t hi = (c + 1) * h->cell < end ? (c + 1) * h->cell : end;

		fill[c] += sign > 0 ? hi - lo : (uint64_t)0 - (hi - lo);
	}
}

/* The level of a cell: 0 empty, 1 to 4 for up to a quarter, half, three
 * quarters, and more of its bytes in use. */
static unsigned char level(uint64_t used, uint64_t cell)
{
	if (used == 0)
		return 0;
	return (unsigned char)(used * 4 <= cell	      ? 1
			       : used * 2 <= cell     ? 2
			       : used * 4 <= cell * 3 ? 3
						      : 4);
}

void heapmap_frame(const struct heapmap *h, int64_t snap, struct heapmap_frame *f)
{
	size_t ncells = (size_t)h->cols * (size_t)h->rows;
	uint64_t *fill = xcalloc(ncells, sizeof(*fill));

	memset(f, 0, sizeof(*f));
	f->level = xcalloc(ncells, 1);
	for (size_t i = 0; i < h->nblocks; i++) {
		const struct hm_block *b = &h->blocks[i];

		if (b->from > snap || b->to <= snap)
			continue;
		cover(h, fill, b, 1);
		f->bytes += b->size;
		f->blocks++;
	}
	for (size_t c = 0; c < ncells; c++)
		f->level[c] = level(fill[c], h->cell);
	free(fill);
}

int64_t heapmap_peak(const struct heapmap *h)
{
	int64_t n = h->last - h->first + 1, best = h->first;
	int64_t *delta = xcalloc((size_t)n + 1, sizeof(*delta));
	int64_t heap = 0, top = -1;

	for (size_t i = 0; i < h->nblocks; i++) {
		const struct hm_block *b = &h->blocks[i];

		delta[b->from - h->first] += (int64_t)b->size;
		if (b->to != INT64_MAX)
			delta[b->to - h->first] -= (int64_t)b->size;
	}
	for (int64_t s = 0; s < n; s++) {
		heap += delta[s];
		if (heap > top) {
			top = heap;
			best = h->first + s;
		}
	}
	free(delta);
	return best;
}

uint64_t heapmap_row_addr(const struct heapmap *h, int row)
{
	uint64_t off = (uint64_t)row * (uint64_t)h->cols * h->cell;
	size_t i = 0;

	while (i + 1 < h->nranges && h->ranges[i + 1].start <= off)
		i++;
	return h->nranges ? h->ranges[i].lo + (off - h->ranges[i].start) : 0;
}

void heapmap_release(struct heapmap *h)
{
	free(h->blocks);
	free(h->ranges);
	memset(h, 0, sizeof(*h));
}
