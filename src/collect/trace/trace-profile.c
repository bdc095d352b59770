/*
 * The trace profile (the seed's layout): resources keyed "FUNC#0" of type
 * "mixed", subtype "time delta", amounts in microseconds, each call with
 * its exclusive time, call order, thread, process and depth; in aggregate
 * mode each function's sums on a thread, with its histogram. Each type
 * also names its object ("location"), and a call's thread is "tid" and
 * its number among its function's calls "call-order", the names Perun's
 * trace collector gives them, so Perun's trace tools (eto) read it.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/trace/trace-read.h"
#include "collect/trace/trace-sym.h"
#include "collect/trace/trace.h"
#include "profile/profile.h"
#include "runtime/trace-format.h"
#include "util/buf.h"
#include "util/common.h"

/* One function of one process: its resource type and sampling counter. */
struct fn_slot {
	uint64_t addr;
	int pid;
	int tid;	     /* the thread whose calls nth counts */
	uint64_t nth;	     /* that thread's calls of the function so far */
	uint64_t last_order; /* the entry number of the last of them */
	bool used;
	bool kept;   /* passes the -f rules */
	long sample; /* keep every sample-th call */
	long seen;
	uint32_t type;
};

struct fn_map {
	struct fn_slot *slots;
	size_t mask, used;
};

enum {
	C_AMOUNT,
	C_EXCL,
	C_MIN,
	C_MAX,
	C_ORDER,
	C_TID,
	C_PID,
	C_DEPTH,
	C_CALLS,
	C_SIZE,
	C_CALL_ORDER,
	NCOLS
};

struct builder {
	struct profile *p;
	const struct trace_data *d;
	const struct trace_opts *o;
	struct sym_cache *syms;
	const char *cmd;
	struct fn_map map;
	struct column *col[NCOLS];
	uint64_t *nth; /* per call: its "call-order" */
};

static size_t slot_hash(uint64_t addr, int pid, size_t mask)
{
	return (size_t)(((addr ^ (uint64_t)pid << 48) * 0x9e3779b97f4a7c15ull) >> 20) & mask;
}

static const struct trace_rule *find_rule(const struct trace_opts *o, const char *name)
{
	/* @name is the demangled one: it matches a rule without parameters. */
	for (size_t i = 0; i < o->nrules; i++)
		if (trace_name_matches(o->rules[i].func, name, name))
			return &o->rules[i];
	for (size_t i = 0; i < o->nusdts; i++)
		if (strcmp(o->usdts[i].func, name) == 0)
			return &o->usdts[i];
	return NULL;
}

/* A path's last component. */
static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path ? path : "";
}

/*
 * The object a function is in, by file name as Perun's trace collector
 * gives it (its eto check sums exclusive time per location): the loaded
 * object around the address, or for a probe by name its rule's library,
 * else the traced binary.
 */
static const char *slot_location(const struct builder *b, const struct trace_call *c,
				 const struct trace_rule *r)
{
	const struct trace_proc *proc = trace_proc_find(b->d, c->pid);

	if (!(c->addr & TRACE_NAMED))
		for (size_t i = 0; proc && i < proc->nobjs; i++)
			if (c->addr >= proc->objs[i].lo && c->addr < proc->objs[i].hi)
				return base_name(proc->objs[i].path);
	if (r && r->lib)
		return base_name(r->lib);
	return base_name(b->o->binary ? b->o->binary : b->cmd);
}

/* Names a function the first time one of its calls comes by. */
static void slot_fill(struct builder *b, struct fn_slot *s, const struct trace_call *c)
{
	const char *name;
	const struct trace_rule *r;
	char hex[32];
	bool named = c->addr & TRACE_NAMED;

	/* The dynamic mode names what it probed, and probed only what it keeps. */
	if (named && (c->addr & ~TRACE_NAMED) < b->d->nnames)
		name = b->d->names[c->addr & ~TRACE_NAMED];
	else
		name = trace_sym_lookup(b->syms, trace_proc_find(b->d, c->pid), c->addr);

	if (!name) {
		snprintf(hex, sizeof(hex), "0x%" PRIx64, c->addr);
		name = hex;
	}
	r = find_rule(b->o, name);
	s->kept = named || !b->o->nrules || r || b->o->userspace;
	s->sample = r && r->sample ? r->sample : b->o->global_sampling;
	if (named && b->d->name_sample[c->addr & ~TRACE_NAMED])
		s->sample = b->d->name_sample[c->addr & ~TRACE_NAMED];
	if (s->kept) {
		struct attr a[] = {
			{.name = "uid", .kind = COL_STR, .s = name},
			{.name = "type", .kind = COL_STR, .s = "mixed"},
			{.name = "subtype", .kind = COL_STR, .s = "time delta"},
			{.name = "location", .kind = COL_STR, .s = slot_location(b, c, r)},
		};
		s->type = profile_type_add(b->p, a, ARRAY_SIZE(a));
	}
}

static struct fn_slot *slot_find(struct fn_map *m, uint64_t addr, int pid)
{
	size_t h = slot_hash(addr, pid, m->mask);
	struct fn_slot *s;

	while ((s = &m->slots[h])->used && (s->addr != addr || s->pid != pid))
		h = (h + 1) & m->mask;
	return s;
}

/* Kept at most half full. */
static void map_grow(struct fn_map *m)
{
	struct fn_map old = *m;

	m->mask = old.slots ? old.mask * 2 + 1 : 63;
	m->slots = xcalloc(m->mask + 1, sizeof(*m->slots));
	for (size_t i = 0; old.slots && i <= old.mask; i++)
		if (old.slots[i].used)
			*slot_find(m, old.slots[i].addr, old.slots[i].pid) = old.slots[i];
	free(old.slots);
}

static struct fn_slot *slot_get(struct builder *b, const struct trace_call *c)
{
	struct fn_slot *s = slot_find(&b->map, c->addr, c->pid);

	if (!s->used) {
		if (++b->map.used * 2 > b->map.mask) {
			map_grow(&b->map);
			s = slot_find(&b->map, c->addr, c->pid);
		}
		*s = (struct fn_slot){.addr = c->addr, .pid = c->pid, .used = true};
		slot_fill(b, s, c);
	}
	return s;
}

/*
 * Microseconds to the nanosecond: the clock's calibration is not finer,
 * and three decimals write (and read) several times faster than the
 * seventeen digits a double would otherwise need.
 */
static double to_us(uint64_t ticks, double ns_per_tick)
{
	return round((double)ticks * ns_per_tick) / 1000.0;
}

/*
 * "[[LO, HI, N], ...]": the non-empty buckets in microseconds, LO the
 * least time a bucket holds and HI the next bucket's LO (docs/trace-format.md);
 * six digits, as the edges are the cycle counter's powers of two.
 */
static void add_histogram(struct builder *b, size_t row, const struct trace_agg *g,
			  double ns_per_tick)
{
	struct buf j = BUF_INIT;

	buf_addc(&j, '[');
	for (size_t i = 0; i < g->nhist; i++) {
		const struct trace_bucket *k = &b->d->hist[g->hist_at + i];
		double lo = (double)vtr_hist_lower(k->k);
		double hi = k->k + 1 < VTR_HIST_BUCKETS ? (double)vtr_hist_lower(k->k + 1)
							: 18446744073709551616.0;

		buf_addf(&j, "%s[%.6g,%.6g,%" PRIu64 "]", i ? "," : "", lo * ns_per_tick / 1000,
			 hi * ns_per_tick / 1000, k->n);
	}
	buf_addc(&j, ']');
	table_set(b->p, &b->p->res, row,
		  &(struct attr){.name = "histogram", .kind = COL_JSON, .s = buf_str(&j)});
	buf_release(&j);
}

static void add_call(struct builder *b, size_t i, double ns_per_tick)
{
	const struct trace_call *c = &b->d->calls[i];
	struct fn_slot *s = slot_get(b, c);
	size_t row;

	if (!s->kept || s->seen++ % s->sample != 0)
		return;
	row = profile_res_add(b->p, s->type);
	col_set_f64(&b->p->res, b->col[C_AMOUNT], row, to_us(c->incl, ns_per_tick));
	col_set_f64(&b->p->res, b->col[C_EXCL], row, to_us(c->excl, ns_per_tick));
	col_set_i64(&b->p->res, b->col[C_TID], row, c->tid);
	col_set_i64(&b->p->res, b->col[C_PID], row, c->pid);
	if (b->d->aggregate) {
		const struct trace_agg *g = &b->d->aggs[i];

		col_set_i64(&b->p->res, b->col[C_CALLS], row, (int64_t)c->order);
		col_set_f64(&b->p->res, b->col[C_MIN], row, to_us(g->min, ns_per_tick));
		col_set_f64(&b->p->res, b->col[C_MAX], row, to_us(g->max, ns_per_tick));
		add_histogram(b, row, g, ns_per_tick);
		return;
	}
	col_set_i64(&b->p->res, b->col[C_ORDER], row, (int64_t)c->order);
	col_set_i64(&b->p->res, b->col[C_CALL_ORDER], row, (int64_t)b->nth[i]);
	col_set_i64(&b->p->res, b->col[C_DEPTH], row, c->depth);
	/* The seed's default size is 0: every call has one, so the views that
	 * plot against it (scatter, flow) draw any trace profile. */
	col_set_i64(&b->p->res, b->col[C_SIZE], row, c->has_size ? c->size : 0);
}

static void make_columns(struct builder *b)
{
	static const char *const names[NCOLS] = {
		"amount", "exclusive",		 "min",	      "max", "order", "tid", "pid", "depth",
		"calls",  "structure-unit-size", "call-order"};

	/* Create every column before taking pointers: adding one may move them. */
	for (int k = 0; k < NCOLS; k++)
		table_col_get(b->p, &b->p->res, names[k], k < C_ORDER ? COL_F64 : COL_I64);
	if (b->d->aggregate) /* set through table_set(), by name */
		table_col_get(b->p, &b->p->res, "histogram", COL_JSON);
	for (int k = 0; k < NCOLS; k++)
		b->col[k] =
			table_col_get(b->p, &b->p->res, names[k], k < C_ORDER ? COL_F64 : COL_I64);
}

static void json_key(struct buf *j, const char *key)
{
	buf_adds(j, j->len > 1 ? ",\"" : "\"");
	buf_adds(j, key);
	buf_adds(j, "\":");
}

static void json_str(struct buf *j, const char *key, const char *v)
{
	json_key(j, key);
	buf_add_json_str(j, v, strlen(v));
}

/* "func"/"usdt": the rules as the options spell them, [LIB#]NAME[#END][#N]. */
static void json_rules(struct buf *j, const char *key, const struct trace_rule *r, size_t n)
{
	struct buf one = BUF_INIT;
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		if (r[i].implicit) /* --size adds it again */
			continue;
		buf_reset(&one);
		buf_addf(&one, "%s%s%s", r[i].lib ? r[i].lib : "", r[i].lib ? "#" : "", r[i].func);
		if (r[i].end)
			buf_addf(&one, "#%s", r[i].end);
		if (r[i].sample)
			buf_addf(&one, "#%ld", r[i].sample);
		if (!any)
			json_key(j, key);
		buf_adds(j, any ? "," : "[");
		buf_add_json_str(j, one.data, one.len);
		any = true;
	}
	if (any)
		buf_adds(j, "]");
	buf_release(&one);
}

/*
 * The options that made the profile, named as the options are, so that
 * `veles check --collect-missing` (and a job matrix) can run them again.
 */
static char *params_json(const struct trace_opts *o)
{
	static const char *const strategies[][2] = {
		{NULL, NULL}, {"userspace", "u_sampled"}, {"all", "a_sampled"}};
	struct buf j = BUF_INIT;

	buf_adds(&j, "{");
	json_key(&j, o->dynamic ? "dynamic" : "instrumented");
	buf_adds(&j, "true");
	if (o->aggregate) {
		json_key(&j, "aggregate");
		buf_adds(&j, "true");
	}
	if (o->strategy != STRATEGY_CUSTOM)
		json_str(&j, "strategy", strategies[o->strategy][o->sampled]);
	if (o->strategy != STRATEGY_CUSTOM && !o->with_usdt) {
		json_key(&j, "no_usdt");
		buf_adds(&j, "true");
	}
	json_key(&j, "global_sampling");
	buf_addf(&j, "%ld", o->global_sampling);
	json_rules(&j, "func", o->rules, o->nrules);
	json_rules(&j, "usdt", o->usdts, o->nusdts);
	for (size_t i = 0; i < o->nsizes; i++) {
		const struct trace_size *z = &o->sizes[i];
		char *v = z->arg ? xasprintf("%s:%s->%s", z->func, z->arg, z->member)
				 : xasprintf("%s:%d", z->func, z->argn);

		if (i == 0)
			json_key(&j, "size");
		buf_adds(&j, i ? "," : "[");
		buf_add_json_str(&j, v, strlen(v));
		free(v);
	}
	if (o->nsizes)
		buf_adds(&j, "]");
	if (o->binary)
		json_str(&j, "binary", o->binary);
	for (size_t i = 0; i < o->nlibs; i++) {
		if (i == 0)
			json_key(&j, "libs");
		buf_adds(&j, i ? "," : "[");
		buf_add_json_str(&j, o->libs[i], strlen(o->libs[i]));
	}
	if (o->nlibs)
		buf_adds(&j, "]");
	buf_adds(&j, "}");
	return buf_detach(&j, NULL);
}

/* The main program (the first process's first object) must have symbols. */
static int check_symbols(struct sym_cache *syms, const struct trace_data *d, const char *cmd)
{
	const struct sym_file *f;

	if (!d->nprocs || !d->procs[0].nobjs || d->nnames)
		return 0;
	f = trace_sym_file(syms, d->procs[0].objs[0].path);
	if (f->nsyms)
		return 0;
	return err_set(ERR_INVALID,
		       "collect trace: %s has no symbol table (stripped?): build it without "
		       "stripping to name its functions",
		       cmd);
}

struct call_key {
	uint64_t addr, order;
	int pid, tid;
	size_t call;
};

static int cmp_call_key(const void *x, const void *y)
{
	const struct call_key *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Every call's place among its function's calls in its thread, by entry: a
 * recursive function's calls return innermost first. */
static void nth_by_sorting(struct builder *b)
{
	const struct trace_data *d = b->d;
	struct call_key *k = xmalloc((d->ncalls + 1) * sizeof(*k));
	uint64_t n = 0;

	for (size_t i = 0; i < d->ncalls; i++)
		k[i] = (struct call_key){d->calls[i].addr, d->calls[i].order, d->calls[i].pid,
					 d->calls[i].tid, i};
	qsort(k, d->ncalls, sizeof(*k), cmp_call_key);
	for (size_t i = 0; i < d->ncalls; i++) {
		bool same = i && k[i].pid == k[i - 1].pid && k[i].tid == k[i - 1].tid &&
			    k[i].addr == k[i - 1].addr;

		n = same ? n + 1 : 0;
		b->nth[k[i].call] = n;
	}
	free(k);
}

/*
 * Perun's "call-order": how many calls of the same function its thread
 * made before this one (sampled-out ones too). A thread's calls come in
 * the order they returned, which is the order they were entered unless a
 * function recursed; only then are they sorted.
 */
static void number_calls(struct builder *b)
{
	const struct trace_data *d = b->d;
	bool recursed = false;

	b->nth = xcalloc(d->ncalls + 1, sizeof(*b->nth));
	for (size_t i = 0; i < d->ncalls && !d->aggregate; i++) {
		const struct trace_call *c = &d->calls[i];
		struct fn_slot *s;

		if (!trace_proc_find(d, c->pid))
			continue;
		s = slot_get(b, c);
		if (s->tid != c->tid || !s->nth) {
			s->tid = c->tid;
			s->nth = 0;
		} else if (c->order < s->last_order) {
			recursed = true;
		}
		s->last_order = c->order;
		b->nth[i] = s->nth++;
	}
	if (recursed)
		nth_by_sorting(b);
}

struct profile *trace_build_profile(const struct trace_data *d, const struct trace_opts *o,
				    struct sym_cache *syms, const char *cmd)
{
	struct builder b = {.d = d, .o = o, .syms = syms, .cmd = cmd};

	if (check_symbols(syms, d, cmd) < 0)
		return NULL;
	b.p = profile_new();
	b.p->layout = LAYOUT_TYPED;
	b.p->type = xstrdup("mixed");
	b.p->units = xcalloc(1, sizeof(*b.p->units));
	b.p->units[0] = (struct kv){xstrdup("mixed(time delta)"), xstrdup("us")};
	b.p->nunits = 1;
	b.p->collector_params = params_json(o);
	make_columns(&b);
	map_grow(&b.map);
	number_calls(&b);
	for (size_t i = 0; i < d->ncalls; i++) {
		const struct trace_proc *proc = trace_proc_find(d, d->calls[i].pid);

		/* A process killed before its exit left no calibration. */
		if (proc)
			add_call(&b, i, proc->ns_per_tick);
	}
	free(b.map.slots);
	free(b.nth);
	return b.p;
}
