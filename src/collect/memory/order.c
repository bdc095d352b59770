/*
 * Ordering the events across threads (order.h). Sorting by timestamp alone
 * put whole 64 KiB buffers of one thread before another's inside a clock
 * tick, so a consumer thread's frees came before the producer's mallocs
 * that returned those addresses, and the replay saw every block live at
 * once. Causality gives the order back: a thread that frees a block saw
 * its allocation, hence read a clock no older, so a release's allocation
 * is never in a later tick; holding a thread back until its head event
 * makes sense is enough, and a head that still waits once the sequence
 * passes its tick (a block allocated before recording began, or in the
 * parent of a forked process) goes as it is.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "collect/memory/memread.h"
#include "collect/memory/order.h"
#include "memformat.h"
#include "util/xalloc.h"

static int ref_cmp(const void *a, const void *b)
{
	const struct mem_ref *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t h = (a * 0x9e3779b97f4a7c15u) ^ (b + 0x632be59bd9b4e019u);

	h ^= h >> 31;
	h *= 0xff51afd7ed558ccdu;
	return h ^ h >> 29;
}

/* The live addresses, (file, address); address 0 marks an empty slot. */
struct addrset {
	struct aslot {
		uint64_t addr;
		uint32_t file;
	} * s;
	size_t cap, n;
};

static size_t as_find(const struct addrset *a, uint32_t file, uint64_t addr)
{
	size_t i = mix(file, addr) & (a->cap - 1);

	while (a->s[i].addr && (a->s[i].addr != addr || a->s[i].file != file))
		i = (i + 1) & (a->cap - 1);
	return i;
}

static bool as_has(const struct addrset *a, uint32_t file, uint64_t addr)
{
	return a->s[as_find(a, file, addr)].addr != 0;
}

static void as_add(struct addrset *a, uint32_t file, uint64_t addr)
{
	size_t i;

	if ((a->n + 1) * 2 > a->cap) {
		struct addrset big = {xcalloc(a->cap * 2, sizeof(*big.s)), a->cap * 2, a->n};

		for (size_t j = 0; j < a->cap; j++)
			if (a->s[j].addr)
				big.s[as_find(&big, a->s[j].file, a->s[j].addr)] = a->s[j];
		free(a->s);
		*a = big;
	}
	i = as_find(a, file, addr);
	if (!a->s[i].addr) {
		a->s[i] = (struct aslot){addr, file};
		a->n++;
	}
}

/* Removal by backward shift, so lookups need no tombstones. */
static void as_del(struct addrset *a, uint32_t file, uint64_t addr)
{
	size_t i = as_find(a, file, addr), j = i, mask = a->cap - 1;

	if (!a->s[i].addr)
		return;
	a->n--;
	for (;;) {
		a->s[i].addr = 0;
		for (;;) {
			size_t home;

			j = (j + 1) & mask;
			if (!a->s[j].addr)
				return;
			home = mix(a->s[j].file, a->s[j].addr) & mask;
			/* Slot j may move to i when its home is not in (i, j]. */
			if (i <= j ? (home <= i || home > j) : (home <= i && home > j))
				break;
		}
		a->s[i] = a->s[j];
		i = j;
	}
}

/* A thread's events held back behind one that must wait. */
struct stream {
	uint32_t file, tid;
	size_t *q, head, len, cap;
};

struct order {
	const struct mem_file *files;
	struct addrset live;
	struct stream *st;
	size_t nst, capst;
	size_t *smap, smapcap; /* (file, tid) -> stream index + 1 */
	size_t *waiting;       /* streams with events held back */
	size_t nwaiting, capwaiting;
	const struct mem_ref *in;
	struct mem_ref *out;
	size_t nout;
};

static size_t stream_of(struct order *o, uint32_t file, uint32_t tid)
{
	size_t mask, i;

	if ((o->nst + 1) * 2 > o->smapcap) {
		size_t cap = o->smapcap * 2;
		size_t *m = xcalloc(cap, sizeof(*m));

		for (size_t k = 0; k < o->nst; k++) {
			i = mix(o->st[k].file, o->st[k].tid) & (cap - 1);
			while (m[i])
				i = (i + 1) & (cap - 1);
			m[i] = k + 1;
		}
		free(o->smap);
		o->smap = m;
		o->smapcap = cap;
	}
	mask = o->smapcap - 1;
	for (i = mix(file, tid) & mask; o->smap[i]; i = (i + 1) & mask) {
		const struct stream *s = &o->st[o->smap[i] - 1];

		if (s->file == file && s->tid == tid)
			return o->smap[i] - 1;
	}
	o->st = xgrow(o->st, sizeof(*o->st), o->nst + 1, &o->capst);
	o->st[o->nst] = (struct stream){.file = file, .tid = tid};
	o->smap[i] = ++o->nst;
	return o->nst - 1;
}

static const struct mem_event *event_of(const struct order *o, size_t r)
{
	return &o->files[o->in[r].file].ev[o->in[r].idx];
}

static bool is_realloc(int kind)
{
	return kind == VMEM_REALLOC || kind == VMEM_REALLOCARRAY;
}

/* Whether event @r would release a block not yet allocated or allocate
 * an address still held. */
static bool blocked(const struct order *o, size_t r)
{
	const struct mem_event *e = event_of(o, r);
	uint32_t f = o->in[r].file;

	if (mem_kind_frees(e->kind))
		return e->addr && !as_has(&o->live, f, e->addr);
	if (is_realloc(e->kind)) {
		if (e->old && !as_has(&o->live, f, e->old))
			return true;
		return e->addr && e->addr != e->old && as_has(&o->live, f, e->addr);
	}
	return e->addr && as_has(&o->live, f, e->addr);
}

static void emit(struct order *o, size_t r)
{
	const struct mem_event *e = event_of(o, r);
	uint32_t f = o->in[r].file;

	o->out[o->nout++] = o->in[r];
	if (mem_kind_frees(e->kind)) {
		as_del(&o->live, f, e->addr);
		return;
	}
	if (is_realloc(e->kind) && e->old)
		as_del(&o->live, f, e->old);
	if (e->addr)
		as_add(&o->live, f, e->addr);
}

/* Lets the held-back streams go as far as they can, until none moves. */
static void settle(struct order *o)
{
	bool moved = true;

	while (moved) {
		moved = false;
		for (size_t k = 0; k < o->nwaiting;) {
			struct stream *s = &o->st[o->waiting[k]];

			while (s->head < s->len && !blocked(o, s->q[s->head])) {
				emit(o, s->q[s->head++]);
				moved = true;
			}
			if (s->head < s->len) {
				k++;
				continue;
			}
			s->head = s->len = 0;
			o->waiting[k] = o->waiting[--o->nwaiting];
		}
	}
}

/* Releases the oldest held-back head as it is, when @ns is past its tick
 * (UINT64_MAX: all). Returns whether one went. */
static bool force_older(struct order *o, uint64_t ns)
{
	size_t best = SIZE_MAX;
	uint64_t best_ns = ns;

	for (size_t k = 0; k < o->nwaiting; k++) {
		const struct stream *s = &o->st[o->waiting[k]];
		uint64_t h = o->in[s->q[s->head]].ns;

		if (h < best_ns || (ns == UINT64_MAX && best == SIZE_MAX)) {
			best = k;
			best_ns = h;
		}
	}
	if (best == SIZE_MAX)
		return false;
	{
		struct stream *s = &o->st[o->waiting[best]];

		emit(o, s->q[s->head++]);
	}
	settle(o);
	return true;
}

static void hold(struct order *o, size_t si, size_t r)
{
	struct stream *s = &o->st[si];

	if (s->head == s->len) {
		o->waiting =
			xgrow(o->waiting, sizeof(*o->waiting), o->nwaiting + 1, &o->capwaiting);
		o->waiting[o->nwaiting++] = si;
	}
	s->q = xgrow(s->q, sizeof(*s->q), s->len + 1, &s->cap);
	s->q[s->len++] = r;
}

static bool threaded(const struct mem_file *files, size_t nfiles)
{
	for (size_t i = 0; i < nfiles; i++)
		for (size_t j = 1; j < files[i].nev; j++)
			if (files[i].ev[j].tid != files[i].ev[0].tid)
				return true;
	return false;
}

struct mem_ref *mem_order(const struct mem_file *files, size_t nfiles, size_t *n)
{
	size_t total = 0, k = 0;
	struct mem_ref *r;
	struct order o = {.files = files};

	for (size_t i = 0; i < nfiles; i++)
		total += files[i].nev;
	r = xmalloc((total ? total : 1) * sizeof(*r));
	for (size_t i = 0; i < nfiles; i++)
		for (size_t j = 0; j < files[i].nev; j++)
			r[k++] = (struct mem_ref){files[i].ev[j].ns, (uint32_t)i, (uint32_t)j};
	qsort(r, total, sizeof(*r), ref_cmp);
	/* One thread a process: its own order is the order. */
	if (!threaded(files, nfiles)) {
		*n = total;
		return r;
	}
	o.in = r;
	o.out = xmalloc((total ? total : 1) * sizeof(*o.out));
	o.live = (struct addrset){xcalloc(1024, sizeof(struct aslot)), 1024, 0};
	o.smap = xcalloc(16, sizeof(*o.smap));
	o.smapcap = 16;
	for (size_t i = 0, si = SIZE_MAX; i < total; i++) {
		uint32_t tid = event_of(&o, i)->tid;

		while (o.nwaiting && force_older(&o, r[i].ns))
			;
		/* A thread's events come in runs: the last stream is most often it. */
		if (si == SIZE_MAX || o.st[si].file != r[i].file || o.st[si].tid != tid)
			si = stream_of(&o, r[i].file, tid);
		if (o.st[si].head < o.st[si].len || blocked(&o, i)) {
			hold(&o, si, i);
			continue;
		}
		emit(&o, i);
		if (o.nwaiting)
			settle(&o);
	}
	while (force_older(&o, UINT64_MAX))
		;
	for (size_t i = 0; i < o.nst; i++)
		free(o.st[i].q);
	free(o.st);
	free(o.smap);
	free(o.waiting);
	free(o.live.s);
	free(r);
	*n = o.nout;
	return o.out;
}
