/*
 * The memory view's numbers (mem_report.h): a replay of a memory
 * profile's events that keeps the live blocks in a hash table, twice: to
 * the end for the totals and leaks, then to the peak for who held it.
 */
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "view/mem_report.h"

/* The live blocks: (pid, address) -> size and site. Linear probing with
 * backward-shift deletion, so frees leave no tombstones behind. */
struct block {
	uint64_t pid, addr; /* addr 0: empty */
	uint64_t size;
	size_t site;
	size_t type; /* the allocation's resource type: its stack */
};

struct live {
	struct block *b;
	size_t cap, n;
};

static size_t live_slot(const struct live *l, uint64_t pid, uint64_t addr)
{
	uint64_t h = (addr ^ pid * 0x9e3779b97f4a7c15u) * 0xff51afd7ed558ccdu;

	return (size_t)(h >> 17) & (l->cap - 1);
}

static struct block *live_find(struct live *l, uint64_t pid, uint64_t addr)
{
	size_t i = live_slot(l, pid, addr);

	while (l->b[i].addr && (l->b[i].addr != addr || l->b[i].pid != pid))
		i = (i + 1) & (l->cap - 1);
	return &l->b[i];
}

static void live_put(struct live *l, const struct block *nb)
{
	struct block *s;

	if ((l->n + 1) * 2 > l->cap) {
		struct live big = {xcalloc(l->cap * 2, sizeof(*big.b)), l->cap * 2, 0};

		for (size_t i = 0; i < l->cap; i++)
			if (l->b[i].addr)
				live_put(&big, &l->b[i]);
		free(l->b);
		*l = big;
	}
	s = live_find(l, nb->pid, nb->addr);
	l->n += !s->addr;
	*s = *nb;
}

/* Removes the block and returns it (addr 0 when it was not live). */
static struct block live_take(struct live *l, uint64_t pid, uint64_t addr)
{
	struct block *s = live_find(l, pid, addr), out = *s;
	size_t i = (size_t)(s - l->b), j = i;

	if (!s->addr)
		return out;
	l->n--;
	for (;;) {
		j = (j + 1) & (l->cap - 1);
		if (!l->b[j].addr)
			break;
		size_t home = live_slot(l, l->b[j].pid, l->b[j].addr);
		/* Move j back to i unless its home lies cyclically in (i, j]. */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			l->b[i] = l->b[j];
			i = j;
		}
	}
	l->b[i].addr = 0;
	return out;
}

/* ---- the sites ---- */

static size_t site_of(struct mem_report *v, size_t row, struct buf *scratch)
{
	uint32_t t = v->p->res_type[row];
	bool added;
	size_t s;

	if (v->site[t] != SIZE_MAX)
		return v->site[t];
	const char *uid = profile_uid(v->p, row, scratch);

	s = strmap_intern(&v->uids, uid, &added);
	if (added) {
		XGROW(v->sites, s + 1, v->sites_cap);
		memset(&v->sites[s], 0, sizeof(v->sites[s]));
		v->sites[s].uid = xstrdup(uid);
		v->nsites = s + 1;
	}
	v->site[t] = s;
	return s;
}

/* ---- the replay ---- */

/* Each thread's last allocation, for "temporary": freed before the
 * thread allocates anything else (heaptrack's definition). */
struct lastalloc {
	struct live m; /* keyed (pid, thread), size = the address */
};

static void replay_alloc(struct mem_report *v, struct live *l, struct lastalloc *last,
			 struct mem_totals *t, const struct mem_event *e, struct buf *scratch)
{
	size_t s = site_of(v, e->row, scratch);
	struct block b = {e->pid, e->addr, e->amount, s, e->type};
	struct block th = {e->pid + 1, e->thread + 1, e->addr, 0, 0};

	t->allocs++;
	t->bytes += e->amount;
	v->sites[s].count++;
	v->sites[s].bytes += e->amount;
	if (e->addr)
		live_put(l, &b);
	live_put(&last->m, &th);
}

static void replay_free(struct mem_report *v, struct live *l, struct lastalloc *last,
			struct mem_totals *t, const struct mem_event *e, uint64_t addr)
{
	struct block b = live_take(l, e->pid, addr);
	struct block *th = live_find(&last->m, e->pid + 1, e->thread + 1);

	t->frees++;
	if (b.addr && th->addr && th->size == addr) {
		t->temporary++;
		v->sites[b.site].temporary++;
	}
	if (th->addr)
		th->size = 0;
}

/* The image of @pid was replaced by exec: its live blocks are gone, not
 * leaked. Returns the bytes they held. */
static unsigned long long replay_exec(struct live *l, uint64_t pid)
{
	unsigned long long bytes = 0;
	size_t n = 0;
	uint64_t *gone = xmalloc((l->n ? l->n : 1) * sizeof(*gone));

	for (size_t i = 0; i < l->cap; i++)
		if (l->b[i].addr && l->b[i].pid == pid) {
			bytes += l->b[i].size;
			gone[n++] = l->b[i].addr;
		}
	for (size_t i = 0; i < n; i++)
		live_take(l, pid, gone[i]);
	free(gone);
	return bytes;
}

/*
 * Replays the events up to position @upto of the sequence (all when SIZE_MAX), keeping the live
 * blocks in @l. Only the full replay counts: the second one, to the peak,
 * just rebuilds the live set.
 */
static void replay(struct mem_report *v, struct live *l, size_t upto, struct mem_totals *t)
{
	struct lastalloc last = {{xcalloc(64, sizeof(struct block)), 64, 0}};
	struct buf scratch = BUF_INIT;
	unsigned long long heap = 0;
	size_t mark = 0;

	for (size_t pos = 0; pos < v->ev.n && (upto == SIZE_MAX || pos <= upto); pos++) {
		struct mem_event e;

		mem_events_get(&v->ev, pos, &e);
		if (e.kind == MEM_FREE || e.kind == MEM_REALLOC) {
			uint64_t gone = e.kind == MEM_FREE ? e.addr : e.old;
			struct block *b = gone ? live_find(l, e.pid, gone) : NULL;

			heap -= b && b->addr ? b->size : 0;
			if (gone)
				replay_free(v, l, &last, t, &e, gone);
		}
		if (e.kind == MEM_ALLOC || (e.kind == MEM_REALLOC && e.addr)) {
			replay_alloc(v, l, &last, t, &e, &scratch);
			heap += e.amount;
		}
		if (heap > t->peak || t->peak_row == SIZE_MAX) {
			t->peak = heap;
			t->peak_row = e.row;
			t->peak_pos = pos;
		}
		for (; mark < v->ev.nexecs && v->ev.execs[mark].pos == pos; mark++)
			heap -= replay_exec(l, v->ev.execs[mark].pid);
	}
	free(last.m.b);
	buf_release(&scratch);
}

const char *mem_report_trace(const struct mem_report *v, size_t type)
{
	const struct column *c = table_col(&v->p->types, "trace");
	const char *t = c ? col_text(v->p, c, type) : NULL;

	return t ? t : "";
}

static void leak_add(struct mem_report *v, const struct block *b)
{
	struct buf key = BUF_INIT;
	bool added;
	size_t i;

	buf_addf(&key, "%zu\n%s", b->site, mem_report_trace(v, b->type));
	i = strmap_intern(&v->stacks, key.data, &added);
	buf_release(&key);
	if (added) {
		XGROW(v->leaks, i + 1, v->leaks_cap);
		v->leaks[i] = (struct mem_leak){b->site, b->type, 0, 0};
		v->nleaks = i + 1;
	}
	v->leaks[i].leaked += b->size;
	v->leaks[i].blocks++;
}

static void analyse(struct mem_report *v, struct mem_totals *t)
{
	struct live l = {xcalloc(1024, sizeof(struct block)), 1024, 0};
	struct mem_totals again;

	memset(t, 0, sizeof(*t));
	t->peak_row = SIZE_MAX;
	replay(v, &l, SIZE_MAX, t);
	for (size_t i = 0; i < l.cap; i++)
		if (l.b[i].addr) {
			v->sites[l.b[i].site].leaked += l.b[i].size;
			v->sites[l.b[i].site].leaked_blocks++;
			t->leaked += l.b[i].size;
			t->leaked_blocks++;
			leak_add(v, &l.b[i]);
		}
	free(l.b);
	if (t->peak_row == SIZE_MAX)
		return;
	/* The second pass stops at the peak: who held the memory then. The
	 * sites' counters are restored afterwards (the replay adds to them). */
	struct mem_site *saved = xmalloc((v->nsites ? v->nsites : 1) * sizeof(*saved));

	memcpy(saved, v->sites, v->nsites * sizeof(*saved));
	l = (struct live){xcalloc(1024, sizeof(struct block)), 1024, 0};
	memset(&again, 0, sizeof(again));
	again.peak_row = SIZE_MAX;
	replay(v, &l, t->peak_pos, &again);
	memcpy(v->sites, saved, v->nsites * sizeof(*saved));
	free(saved);
	for (size_t i = 0; i < l.cap; i++)
		if (l.b[i].addr)
			v->sites[l.b[i].site].peak += l.b[i].size;
	free(l.b);
}

void mem_report_build(const struct profile *p, struct mem_report *r)
{
	memset(r, 0, sizeof(*r));
	r->p = p;
	mem_events_open(p, &r->ev);
	r->site = xmalloc((p->types.nrows + 1) * sizeof(*r->site));
	for (size_t t = 0; t < p->types.nrows; t++)
		r->site[t] = SIZE_MAX;
	analyse(r, &r->t);
}

void mem_report_release(struct mem_report *r)
{
	for (size_t i = 0; i < r->nsites; i++)
		free(r->sites[i].uid);
	free(r->sites);
	free(r->leaks);
	strmap_free(&r->stacks);
	free(r->site);
	mem_events_close(&r->ev);
	strmap_free(&r->uids);
	memset(r, 0, sizeof(*r));
}
