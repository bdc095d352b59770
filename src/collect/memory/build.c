/*
 * The memory profile (docs/collect-memory.md): typed layout, one resource
 * type per (allocation site, subtype, snapshot) with persistent uid,
 * type, subtype, trace, snapshot and time as the seed's example has them,
 * and per event the collectable amount, address, thread and pid (plus
 * old-address for a realloc).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/memory/build.h"
#include "collect/memory/memread.h"
#include "collect/memory/order.h"
#include "collect/memory/symbols.h"
#include "memformat.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"

/* A stack once symbolised: its trace, uid and whether it is filtered out. */
struct site {
	char *trace; /* compact JSON array */
	char *uid;   /* compact JSON object */
	bool excluded;
	bool done;
};

struct proc {
	struct mem_file *f;
	struct symbolizer *sym;
	struct site *sites; /* by stack id; [0] is the unknown stack */
	size_t nsites;
};

static void frame_json(struct buf *b, const char *function, const char *source, int line)
{
	buf_adds(b, "{\"function\":");
	buf_add_json_str(b, function, strlen(function));
	buf_addf(b, ",\"line\":%d,\"source\":", line);
	buf_add_json_str(b, source, strlen(source));
	buf_addc(b, '}');
}

/* Functions whose frames are the allocator, not the allocation's site. */
static bool is_allocator(const char *fn)
{
	static const char *const names[] = {"malloc",	      "calloc",	       "realloc",  "free",
					    "posix_memalign", "aligned_alloc", "memalign", "valloc",
					    "pvalloc",	      "reallocarray"};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (strcmp(fn, names[i]) == 0)
			return true;
	return strncmp(fn, "operator new", 12) == 0 || strncmp(fn, "operator delete", 15) == 0;
}

static bool matches(const char *s, const char **list, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *base = strrchr(s, '/');

		if (strcmp(s, list[i]) == 0 || (base && strcmp(base + 1, list[i]) == 0))
			return true;
	}
	return false;
}

static void site_make(struct proc *pr, uint32_t id, int kind, const struct mem_opts *o,
		      struct site *st)
{
	const struct mem_stack *s =
		id < pr->f->nstacks && pr->f->stacks[id].defined ? &pr->f->stacks[id] : NULL;
	/* A copy: a later lookup may move the symboliser's frames. */
	struct sym_frame uidf, *uid = NULL;
	struct buf t = BUF_INIT, u = BUF_INIT;

	buf_addc(&t, '[');
	frame_json(&t, mem_kind_name(kind), "unreachable", 0);
	for (uint32_t i = 0; s && i < s->n; i++) {
		const struct sym_frame *f = sym_lookup(pr->sym, s->pc[i]);

		if (f->runtime)
			continue;
		for (; f; f = f->next) {
			if (!uid && !is_allocator(f->function)) {
				uidf = *f;
				uid = &uidf;
			}
			buf_addc(&t, ',');
			frame_json(&t, f->function, f->source, f->line);
		}
	}
	buf_addc(&t, ']');
	if (uid)
		frame_json(&u, uid->function, uid->source, uid->line);
	else
		frame_json(&u, mem_kind_name(kind), "unreachable", 0);
	st->excluded = uid && (matches(uid->source, o->no_source, o->nno_source) ||
			       matches(uid->function, o->no_func, o->nno_func));
	st->trace = buf_detach(&t, NULL);
	st->uid = buf_detach(&u, NULL);
	st->done = true;
}

/* Sites are per stack and kind: the trace starts with the allocator. */
static struct site *site_get(struct proc *pr, uint32_t id, int kind, const struct mem_opts *o)
{
	size_t at = (size_t)id * (VMEM_KIND_MAX + 1) + (size_t)kind;

	if (at >= pr->nsites) {
		size_t want = at + 1 > pr->nsites * 2 ? at + 1 : pr->nsites * 2;

		pr->sites = xrealloc(pr->sites, want * sizeof(*pr->sites));
		memset(pr->sites + pr->nsites, 0, (want - pr->nsites) * sizeof(*pr->sites));
		pr->nsites = want;
	}
	if (!pr->sites[at].done)
		site_make(pr, id, kind, o, &pr->sites[at]);
	return &pr->sites[at];
}

/* ---- resource types, cached by (process, stack, kind, snapshot) ---- */

struct tkey {
	uint32_t file, stack, kind;
	int64_t snap;
	uint32_t type; /* UINT32_MAX: empty slot */
};

struct tcache {
	struct tkey *slot;
	size_t cap, n;
};

static size_t tkey_hash(const struct tkey *k)
{
	uint64_t h = (uint64_t)k->file * 0x9e3779b97f4a7c15u;

	h ^= ((uint64_t)k->stack << 8 | k->kind) * 0xff51afd7ed558ccdu;
	h ^= (uint64_t)k->snap * 0xc4ceb9fe1a85ec53u;
	return (size_t)(h ^ h >> 29);
}

static struct tkey *tcache_find(struct tcache *c, const struct tkey *k)
{
	size_t i = tkey_hash(k) & (c->cap - 1);

	while (c->slot[i].type != UINT32_MAX &&
	       (c->slot[i].file != k->file || c->slot[i].stack != k->stack ||
		c->slot[i].kind != k->kind || c->slot[i].snap != k->snap))
		i = (i + 1) & (c->cap - 1);
	return &c->slot[i];
}

static void tcache_grow(struct tcache *c)
{
	struct tcache big = {xmalloc(c->cap * 2 * sizeof(struct tkey)), c->cap * 2, c->n};

	for (size_t i = 0; i < big.cap; i++)
		big.slot[i].type = UINT32_MAX;
	for (size_t i = 0; i < c->cap; i++)
		if (c->slot[i].type != UINT32_MAX)
			*tcache_find(&big, &c->slot[i]) = c->slot[i];
	free(c->slot);
	*c = big;
}

static uint32_t type_of(struct profile *p, struct tcache *c, struct proc *pr, struct tkey *k,
			const struct site *st, const struct mem_opts *o)
{
	struct tkey *s;
	char time[32];

	if (c->n * 2 >= c->cap)
		tcache_grow(c);
	s = tcache_find(c, k);
	if (s->type != UINT32_MAX)
		return s->type;
	snprintf(time, sizeof(time), "%f", (double)(k->snap + 1) * o->sampling);
	struct attr a[] = {
		{.name = "uid", .kind = COL_JSON, .s = st->uid},
		{.name = "type", .kind = COL_STR, .s = "memory"},
		{.name = "subtype", .kind = COL_STR, .s = mem_kind_name((int)k->kind)},
		{.name = "trace", .kind = COL_JSON, .s = st->trace},
		{.name = "snapshot", .kind = COL_I64, .i = k->snap},
		{.name = "time", .kind = COL_STR, .s = time},
	};
	*s = *k;
	s->type = profile_type_add(p, a, ARRAY_SIZE(a));
	c->n++;
	(void)pr;
	return s->type;
}

/* ---- the profile ---- */

enum { C_AMOUNT, C_ADDRESS, C_OLD, C_THREAD, C_PID, C_ORDER, NCOLS };

/*
 * The totals as `show memory` counts them (docs/collect-memory.md): an
 * allocation is a call that returned a block (a realloc that freed with
 * size 0 returned none), a release a block that ended (a free or delete,
 * and the old block of a realloc, moved or not), so that allocations less
 * releases are the blocks still live.
 */
static void mem_count(const struct mem_event *e, struct mem_totals *tot)
{
	bool re = e->kind == VMEM_REALLOC || e->kind == VMEM_REALLOCARRAY;

	if (mem_kind_frees(e->kind) || (re && e->old))
		tot->frees++;
	if (!mem_kind_frees(e->kind) && (!re || e->addr)) {
		tot->allocs++;
		tot->bytes += e->size;
	}
}

static void add_event(struct profile *p, struct column **col, const struct mem_event *e,
		      uint32_t type, uint32_t pid, struct mem_totals *tot)
{
	size_t row = profile_res_add(p, type);

	col_set_i64(&p->res, col[C_AMOUNT], row, (int64_t)e->size);
	col_set_i64(&p->res, col[C_ADDRESS], row, (int64_t)e->addr);
	if (e->kind == VMEM_REALLOC || e->kind == VMEM_REALLOCARRAY)
		col_set_i64(&p->res, col[C_OLD], row, (int64_t)e->old);
	col_set_i64(&p->res, col[C_THREAD], row, e->tid);
	col_set_i64(&p->res, col[C_PID], row, pid);
	/* The file groups events by type: "order" keeps their sequence. */
	col_set_i64(&p->res, col[C_ORDER], row, (int64_t)row + 1);
	mem_count(e, tot);
}

static void profile_start(struct profile *p, const struct mem_opts *o, struct column **col)
{
	static const char *const names[NCOLS] = {"amount", "address", "old-address",
						 "thread", "pid",     "order"};
	struct buf b = BUF_INIT;

	p->layout = LAYOUT_TYPED;
	p->type = xstrdup("memory");
	p->units = xcalloc(1, sizeof(*p->units));
	p->units[0] = (struct kv){xstrdup("memory"), xstrdup("B")};
	p->nunits = 1;
	buf_addf(&b, "{\"all\":%s,\"sampling\":%g,\"no_func\":", o->all ? "true" : "false",
		 o->sampling);
	for (int pass = 0; pass < 2; pass++) {
		const char **list = pass ? o->no_source : o->no_func;
		size_t n = pass ? o->nno_source : o->nno_func;

		if (pass)
			buf_adds(&b, ",\"no_source\":");
		if (n == 0)
			buf_adds(&b, "null");
		for (size_t i = 0; i < n; i++) {
			buf_adds(&b, i == 0 ? (n > 1 ? "[" : "") : ",");
			buf_add_json_str(&b, list[i], strlen(list[i]));
		}
		if (n > 1)
			buf_addc(&b, ']');
	}
	buf_addc(&b, '}');
	p->collector_params = buf_detach(&b, NULL);
	/* Create every column before taking pointers: adding one may move them. */
	for (int k = 0; k < NCOLS; k++)
		table_col_get(p, &p->res, names[k], COL_I64);
	for (int k = 0; k < NCOLS; k++)
		col[k] = table_col_get(p, &p->res, names[k], COL_I64);
}

/*
 * An exec ends the heap of the image it replaces: header.execs lists, for
 * each image that ended so, its pid and the order of its last event
 * (@last, per file), after which a replay drops the image's live blocks
 * rather than count them as leaks (docs/collect-memory.md).
 */
static void note_execs(struct profile *p, const struct mem_file *files, size_t nfiles,
		       const size_t *last)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < nfiles; i++)
		if (files[i].end == VMEM_END_EXEC && last[i])
			buf_addf(&b, "%s[%u,%zu]", b.len ? "," : "[", files[i].pid, last[i]);
	if (!b.len)
		return;
	buf_addc(&b, ']');
	p->header_extra =
		xrealloc(p->header_extra, (p->nheader_extra + 1) * sizeof(*p->header_extra));
	p->header_extra[p->nheader_extra++] = (struct kv){xstrdup("execs"), buf_detach(&b, NULL)};
}

uint64_t mem_first_start(const struct mem_file *files, size_t nfiles)
{
	uint64_t t0 = UINT64_MAX;

	for (size_t i = 0; i < nfiles; i++)
		if (files[i].start_ns < t0)
			t0 = files[i].start_ns;
	return nfiles ? t0 : 0;
}

static void procs_free(struct proc *pr, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < pr[i].nsites; j++) {
			free(pr[i].sites[j].trace);
			free(pr[i].sites[j].uid);
		}
		free(pr[i].sites);
		sym_close(pr[i].sym);
	}
	free(pr);
}

int mem_build(struct mem_file *files, size_t nfiles, const struct mem_opts *o, struct profile **out,
	      struct mem_totals *tot)
{
	struct proc *pr = xcalloc(nfiles ? nfiles : 1, sizeof(*pr));
	struct tcache cache = {xmalloc(1024 * sizeof(struct tkey)), 1024, 0};
	struct profile *p = profile_new();
	struct column *col[NCOLS];
	uint64_t t0 = o->start_ns ? o->start_ns : mem_first_start(files, nfiles);
	size_t n = 0, *last;
	struct mem_ref *r = NULL;
	int ret = 0;

	memset(tot, 0, sizeof(*tot));
	for (size_t i = 0; i < cache.cap; i++)
		cache.slot[i].type = UINT32_MAX;
	profile_start(p, o, col);
	for (size_t i = 0; i < nfiles && ret == 0; i++) {
		pr[i].f = &files[i];
		ret = sym_open(files[i].maps, &pr[i].sym);
	}
	if (ret == 0)
		r = mem_order(files, nfiles, &n);
	last = xcalloc(nfiles ? nfiles : 1, sizeof(*last));
	for (size_t i = 0; i < n; i++) {
		struct proc *q = &pr[r[i].file];
		const struct mem_event *e = &q->f->ev[r[i].idx];
		const struct site *st = site_get(q, e->stack, e->kind, o);
		uint64_t since = e->ns > t0 ? e->ns - t0 : 0;
		struct tkey k = {r[i].file, e->stack, e->kind,
				 (int64_t)((double)since / 1e9 / o->sampling), 0};

		if (st->excluded) {
			tot->excluded++;
			continue;
		}
		add_event(p, col, e, type_of(p, &cache, q, &k, st, o), q->f->pid, tot);
		last[r[i].file] = profile_nres(p);
	}
	note_execs(p, files, nfiles, last);
	free(last);
	free(r);
	free(cache.slot);
	procs_free(pr, nfiles);
	if (ret < 0) {
		profile_free(p);
		return ret;
	}
	*out = p;
	return 0;
}
