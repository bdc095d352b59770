/*
 * The dynamic mode's samples paired into calls (trace-dynamic-priv.h):
 * per thread, in time order, an entry opens a call its return closes, a
 * USDT start one its end closes, and an unpaired probe measures the time
 * since its previous hit. Only the command's processes count.
 */
#include <stdlib.h>
#include <string.h>

#include "collect/trace/trace-dynamic-priv.h"
#include "collect/trace/trace-read.h"
#include "collect/trace/trace.h"
#include "util/common.h"

static int cmp_sample(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

const struct probe *dyn_probe_of(const struct dyn *dy, uint64_t id)
{
	size_t lo = 0, hi = dy->nprobes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t at = dy->by_id[mid].id;

		if (at == id)
			return &dy->probes[dy->by_id[mid].index];
		if (at < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int cmp_by_id(const void *a, const void *b)
{
	uint64_t x = ((const struct probe_id *)a)->id, y = ((const struct probe_id *)b)->id;

	return x < y ? -1 : x > y;
}

void dyn_index_probes(struct dyn *dy)
{
	dy->by_id = xmalloc((dy->nprobes + 1) * sizeof(*dy->by_id));
	for (size_t i = 0; i < dy->nprobes; i++)
		dy->by_id[i] = (struct probe_id){dy->probes[i].id, i};
	qsort(dy->by_id, dy->nprobes, sizeof(*dy->by_id), cmp_by_id);
}

static void add_proc(struct trace_data *d, int pid, const char *path)
{
	struct trace_proc *p;

	if (trace_proc_find(d, pid))
		return;
	d->procs = xrealloc(d->procs, (d->nprocs + 1) * sizeof(*d->procs));
	p = &d->procs[d->nprocs++];
	*p = (struct trace_proc){.pid = pid, .ns_per_tick = 1.0, .nobjs = 1};
	p->objs = xcalloc(1, sizeof(*p->objs));
	p->objs[0] = (struct trace_object){0, 0, UINT64_MAX, xstrdup(path)};
}

/* One thread's pairing: the function calls open, USDT pairs open, and
 * each unpaired probe's previous hit. */
struct pairing {
	struct trace_call *stack; /* open function calls */
	uint64_t *children;	  /* their callees' inclusive time */
	uint64_t *sps;		  /* their stack pointers at entry, 0 if not known */
	uint64_t *unreturned;
	struct trace_call *usdt; /* open USDT pairs */
	struct trace_call *last; /* per name: an unpaired probe's last hit */
	size_t depth, nusdt, order;
	struct trace_data *d;
};

static struct trace_call open_call(struct pairing *pr, const struct probe *p,
				   const struct sample *s)
{
	return (struct trace_call){.addr = p->spec->name,
				   .incl = s->time,
				   .order = pr->order++,
				   .pid = (int)s->pid,
				   .tid = (int)s->tid,
				   .depth = (uint32_t)pr->depth,
				   .has_size = s->has_size,
				   .size = s->size};
}

/*
 * A return closes the open call of its function whose entry's stack
 * pointer is 8 below its own (the return address popped), else the
 * innermost open call of its function. The kernel probes the returns of
 * 64 nested calls of a thread at most: the calls open above the one
 * closed returned unseen, and are dropped.
 */
static void close_function(struct pairing *pr, const struct probe *p, const struct sample *s)
{
	size_t k = pr->depth;
	struct trace_call c;

	while (k > 0 && !(pr->stack[k - 1].addr == p->spec->name &&
			  (!s->has_sp || !pr->sps[k - 1] || pr->sps[k - 1] + 8 == s->sp)))
		k--;
	if (k == 0)
		return;
	if (s->has_sp && pr->sps[k - 1])
		*pr->unreturned += pr->depth - k;
	pr->depth = k - 1;
	c = pr->stack[pr->depth];
	c.incl = s->time - c.incl;
	c.excl = c.incl - (pr->children[pr->depth] < c.incl ? pr->children[pr->depth] : c.incl);
	if (pr->depth > 0)
		pr->children[pr->depth - 1] += c.incl;
	trace_data_add_call(pr->d, &c);
}

/* A USDT end closes the innermost open start of its pair. */
static void close_usdt(struct pairing *pr, const struct probe *p, const struct sample *s)
{
	size_t k = pr->nusdt;
	struct trace_call c;

	while (k > 0 && pr->usdt[k - 1].addr != p->spec->name)
		k--;
	if (k == 0)
		return;
	c = pr->usdt[k - 1];
	memmove(&pr->usdt[k - 1], &pr->usdt[k], (pr->nusdt - k) * sizeof(*pr->usdt));
	pr->nusdt--;
	c.excl = c.incl = s->time - c.incl;
	trace_data_add_call(pr->d, &c);
}

/* An unpaired probe: the time since its previous hit in the thread. */
static void usdt_hit(struct pairing *pr, const struct probe *p, const struct sample *s)
{
	struct trace_call *last = &pr->last[p->spec->name & ~TRACE_NAMED];

	if (last->tid) {
		struct trace_call c = *last;

		c.excl = c.incl = s->time - c.incl;
		trace_data_add_call(pr->d, &c);
	}
	*last = open_call(pr, p, s);
}

static void pair_sample(struct pairing *pr, const struct probe *p, const struct sample *s)
{
	switch (p->spec->kind) {
	case PROBE_ENTRY:
		pr->children[pr->depth] = 0;
		pr->sps[pr->depth] = s->has_sp ? s->sp : 0;
		pr->stack[pr->depth] = open_call(pr, p, s);
		pr->depth++;
		break;
	case PROBE_RETURN:
		close_function(pr, p, s);
		break;
	case PROBE_USDT_START:
		pr->usdt[pr->nusdt++] = open_call(pr, p, s);
		break;
	case PROBE_USDT_END:
		close_usdt(pr, p, s);
		break;
	case PROBE_USDT_HIT:
		usdt_hit(pr, p, s);
		break;
	}
}

/* One thread's samples [i, end), in time order. */
static void pair_thread(struct dyn *dy, size_t i, size_t end, struct trace_data *d)
{
	struct pairing pr = {.d = d, .unreturned = &dy->unreturned};

	pr.stack = xcalloc(end - i, sizeof(*pr.stack));
	pr.children = xcalloc(end - i, sizeof(*pr.children));
	pr.sps = xcalloc(end - i, sizeof(*pr.sps));
	pr.usdt = xcalloc(end - i, sizeof(*pr.usdt));
	pr.last = xcalloc(d->nnames + 1, sizeof(*pr.last));
	for (; i < end; i++) {
		const struct probe *p = dyn_probe_of(dy, dy->samples[i].id);

		if (p)
			pair_sample(&pr, p, &dy->samples[i]);
	}
	free(pr.stack);
	free(pr.children);
	free(pr.sps);
	free(pr.usdt);
	free(pr.last);
}

static int cmp_fork(const void *a, const void *b)
{
	const struct fork_rec *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

/* The command's process and those it forked, in the order they were made. */
static uint32_t *command_pids(struct dyn *dy, size_t *n)
{
	uint32_t *pids = xmalloc((dy->nforks + 1) * sizeof(*pids));

	*n = 0;
	pids[(*n)++] = (uint32_t)dy->child;
	if (dy->nforks)
		qsort(dy->forks, dy->nforks, sizeof(*dy->forks), cmp_fork);
	for (size_t i = 0; i < dy->nforks; i++)
		for (size_t k = 0; k < *n; k++)
			if (pids[k] == dy->forks[i].ppid) {
				pids[(*n)++] = dy->forks[i].pid;
				break;
			}
	return pids;
}

/* Drops the samples of processes that are not the command's. */
static void keep_command_samples(struct dyn *dy)
{
	size_t n, kept = 0;
	uint32_t *pids = command_pids(dy, &n);

	for (size_t i = 0; i < dy->nsamples; i++)
		for (size_t k = 0; k < n; k++)
			if (dy->samples[i].pid == pids[k]) {
				dy->samples[kept++] = dy->samples[i];
				break;
			}
	dy->nsamples = kept;
	free(pids);
}

void dyn_pair_samples(struct dyn *dy, const char *path, struct trace_data *d)
{
	keep_command_samples(dy);
	if (dy->nsamples)
		qsort(dy->samples, dy->nsamples, sizeof(*dy->samples), cmp_sample);
	for (size_t i = 0, end; i < dy->nsamples; i = end) {
		for (end = i; end < dy->nsamples && dy->samples[end].tid == dy->samples[i].tid;
		     end++)
			;
		add_proc(d, (int)dy->samples[i].pid, path);
		pair_thread(dy, i, end, d);
	}
}
