/*
 * The data of the heapmap view (heapmap.h): a memory profile's blocks with
 * the snapshots they lived through, laid out over the used address ranges,
 * and one frame of cell levels per snapshot.
 */
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "util/common.h"
#include "view/heapmap.h"
#include "view/mem_events.h"

#define GAP (1u << 20) /* address gaps wider than this are left out */

/* An allocation or release of the chosen process, in the run's order. */
struct hm_ev {
	uint64_t addr, size, pos;
	int64_t snap;
	size_t image; /* how many of the process's execs came before it */
	bool alloc;
};

/* The chosen process's images an exec ended: the position of each one's
 * last event, ascending, and the snapshot that event fell in, which ends
 * the image's blocks still live. */
struct hm_execs {
	size_t *pos;
	int64_t *end;
	size_t n;
};

static void read_execs(const struct mem_events *me, uint64_t pid, struct hm_execs *x)
{
	x->pos = xmalloc((me->nexecs ? me->nexecs : 1) * sizeof(*x->pos));
	x->end = xmalloc((me->nexecs ? me->nexecs : 1) * sizeof(*x->end));
	x->n = 0;
	for (size_t i = 0; i < me->nexecs; i++)
		if (me->execs[i].pid == pid) {
			x->end[x->n] = INT64_MAX;
			x->pos[x->n++] = me->execs[i].pos;
		}
}

/* Appends @e to the array of @n events, @cap their room. */
static void push(struct hm_ev **ev, size_t *n, size_t *cap, struct hm_ev e)
{
	XGROW(*ev, *n + 1, *cap);
	(*ev)[(*n)++] = e;
}

/* The events of the first process to allocate; a realloc is a release of
 * its old block then an allocation of the new one. */
static size_t read_events(const struct profile *p, struct heapmap *h, struct hm_ev **out,
			  struct hm_execs *x)
{
	struct mem_events me;
	struct mem_event m;
	size_t n = 0, cap = 0, image = 0;

	*out = NULL;
	mem_events_open(p, &me);
	if (me.n) {
		mem_events_get(&me, 0, &m);
		h->pid = m.pid;
	}
	read_execs(&me, h->pid, x);
	for (size_t i = 0; i < me.n; i++) {
		struct hm_ev e;

		mem_events_get(&me, i, &m);
		if (m.pid != h->pid)
			continue;
		/* Past an image's last event, the next image begins. */
		while (image < x->n && x->pos[image] < i)
			image++;
		e = (struct hm_ev){m.addr, 0, 2 * i, m.snapshot, image, false};
		if (image < x->n)
			x->end[image] = e.snap;
		if (m.kind != MEM_ALLOC) {
			struct hm_ev f = e;

			f.addr = m.kind == MEM_FREE ? m.addr : m.old;
			if (f.addr)
				push(out, &n, &cap, f);
		}
		e.alloc = true;
		e.size = m.amount;
		e.pos++;
		if (m.kind != MEM_FREE && e.addr)
			push(out, &n, &cap, e);
	}
	mem_events_close(&me);
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
	free(x.pos);
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
