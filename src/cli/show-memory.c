/*
 * veles show PROFILE memory: what a heaptrack user reads first, from a
 * memory profile's events in order (docs/cli/show.md): peak heap and when,
 * totals, temporary allocations, leaks with their stacks, and the top
 * allocation sites by count, by bytes and by their share of the peak.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/show.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/human.h"
#include "util/strmap.h"
#include "view/mem_events.h"

#define DEFAULT_TOP 10

/* An allocation site (a uid) and what it did. */
struct site {
	char *uid;
	unsigned long long count, bytes, temporary, leaked, leaked_blocks, peak;
};

/* The live blocks: (pid, address) -> size and site. Linear probing with
 * backward-shift deletion, so frees leave no tombstones behind. */
struct block {
	uint64_t pid, addr; /* addr 0: empty */
	uint64_t size;
	size_t site;
	size_t type; /* the allocation's resource type: its stack */
};

/* Blocks never freed, gathered by their stack: a site (uid) is reached
 * from many stacks, and the one that leaked is the one to show. */
struct leak {
	size_t site, type;
	unsigned long long leaked, blocks;
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

struct mem_view {
	const struct profile *p;
	struct mem_events ev;
	size_t *site; /* per type, SIZE_MAX until seen */
	struct site *sites;
	size_t nsites;
	struct strmap uids;
	struct leak *leaks;
	size_t nleaks;
	struct strmap stacks; /* a leak's trace -> its index in leaks */
};

static void view_init(struct mem_view *v, const struct profile *p)
{
	memset(v, 0, sizeof(*v));
	v->p = p;
	mem_events_open(p, &v->ev);
	v->site = xmalloc((p->types.nrows + 1) * sizeof(*v->site));
	for (size_t t = 0; t < p->types.nrows; t++)
		v->site[t] = SIZE_MAX;
}

static size_t site_of(struct mem_view *v, size_t row, struct buf *scratch)
{
	uint32_t t = v->p->res_type[row];
	bool added;
	size_t s;

	if (v->site[t] != SIZE_MAX)
		return v->site[t];
	const char *uid = profile_uid(v->p, row, scratch);

	s = strmap_intern(&v->uids, uid, &added);
	if (added) {
		v->sites = xrealloc(v->sites, (s + 1) * sizeof(*v->sites));
		memset(&v->sites[s], 0, sizeof(v->sites[s]));
		v->sites[s].uid = xstrdup(uid);
		v->nsites = s + 1;
	}
	v->site[t] = s;
	return s;
}

/* ---- the replay ---- */

struct totals {
	unsigned long long allocs, frees, bytes, temporary, leaked, leaked_blocks;
	unsigned long long peak;
	size_t peak_row; /* SIZE_MAX: no event at all */
	size_t peak_pos; /* its place in the sequence */
};

/* Each thread's last allocation, for "temporary": freed before the
 * thread allocates anything else (heaptrack's definition). */
struct lastalloc {
	struct live m; /* keyed (pid, thread), size = the address */
};

static void replay_alloc(struct mem_view *v, struct live *l, struct lastalloc *last,
			 struct totals *t, const struct mem_event *e, struct buf *scratch)
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

static void replay_free(struct mem_view *v, struct live *l, struct lastalloc *last,
			struct totals *t, const struct mem_event *e, uint64_t addr)
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
static void replay(struct mem_view *v, struct live *l, size_t upto, struct totals *t)
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

/* The trace of a type, or its uid where the profile has no traces. */
static const char *trace_text(const struct mem_view *v, size_t type)
{
	const struct column *c = table_col(&v->p->types, "trace");
	const char *t = c ? col_text(v->p, c, type) : NULL;

	return t ? t : "";
}

static void leak_add(struct mem_view *v, const struct block *b)
{
	struct buf key = BUF_INIT;
	bool added;
	size_t i;

	buf_addf(&key, "%zu\n%s", b->site, trace_text(v, b->type));
	i = strmap_intern(&v->stacks, key.data, &added);
	buf_release(&key);
	if (added) {
		v->leaks = xrealloc(v->leaks, (i + 1) * sizeof(*v->leaks));
		v->leaks[i] = (struct leak){b->site, b->type, 0, 0};
		v->nleaks = i + 1;
	}
	v->leaks[i].leaked += b->size;
	v->leaks[i].blocks++;
}

static void analyse(struct mem_view *v, struct totals *t)
{
	struct live l = {xcalloc(1024, sizeof(struct block)), 1024, 0};
	struct totals again;

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
	struct site *saved = xmalloc((v->nsites ? v->nsites : 1) * sizeof(*saved));

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

/* ---- output ---- */

static const char *human(unsigned long long bytes, char *out, size_t len)
{
	return human_num(out, len, (double)bytes, (double)bytes, HUMAN_BYTES, 2);
}

static const char *row_time(const struct mem_view *v, size_t row)
{
	size_t at;
	const struct column *c = profile_attr(v->p, row, "time", NULL, &at);
	const char *text = c ? col_text(v->p, c, at) : NULL;

	return text ? text : "?";
}

enum order { BY_COUNT, BY_BYTES, BY_PEAK, BY_LEAKED };
static enum order sort_key;
static const struct site *sort_sites;

static unsigned long long key_of(const struct site *s)
{
	return sort_key == BY_COUNT   ? s->count
	       : sort_key == BY_BYTES ? s->bytes
	       : sort_key == BY_PEAK  ? s->peak
				      : s->leaked;
}

static int site_cmp(const void *a, const void *b)
{
	unsigned long long x = key_of(&sort_sites[*(const size_t *)a]);
	unsigned long long y = key_of(&sort_sites[*(const size_t *)b]);

	if (x != y)
		return x > y ? -1 : 1;
	return strcmp(sort_sites[*(const size_t *)a].uid, sort_sites[*(const size_t *)b].uid);
}

/* The sites with a non-zero @key, largest first; returns how many. */
static size_t top_sites(const struct mem_view *v, enum order key, size_t *idx)
{
	size_t n = 0;

	sort_key = key;
	sort_sites = v->sites;
	for (size_t i = 0; i < v->nsites; i++)
		if (key_of(&v->sites[i]))
			idx[n++] = i;
	qsort(idx, n, sizeof(*idx), site_cmp);
	return n;
}

/* A type's stack, one frame a line, from its trace's JSON text. */
static void print_trace(const struct mem_view *v, size_t type)
{
	const char *t = trace_text(v, type);

	while ((t = strstr(t, "\"function\":\""))) {
		const char *fn = t + 12, *end = strchr(fn, '"');
		const char *src = strstr(t, "\"source\":\""), *line = strstr(t, "\"line\":");

		if (!end || !src || !line)
			break;
		printf("        %.*s", (int)(end - fn), fn);
		src += 10;
		if (strncmp(src, "unreachable\"", 12) != 0)
			printf("  %.*s:%ld", (int)strcspn(src, "\""), src,
			       strtol(line + 7, NULL, 10));
		printf("\n");
		t = end;
	}
}

static void print_top(const struct mem_view *v, enum order key, const char *title, size_t limit,
		      size_t *idx)
{
	size_t n = top_sites(v, key, idx);
	char a[32], b[32];

	if (!n)
		return;
	printf("\n%s:\n", title);
	for (size_t i = 0; i < n && i < limit; i++) {
		const struct site *s = &v->sites[idx[i]];

		if (key == BY_COUNT)
			printf("  %10llu calls  %12s  %s\n", s->count,
			       human(s->bytes, a, sizeof(a)), s->uid);
		else if (key == BY_BYTES)
			printf("  %12s  %10llu calls  %s\n", human(s->bytes, a, sizeof(a)),
			       s->count, s->uid);
		else
			printf("  %12s  %s\n", human(s->peak, a, sizeof(a)), s->uid);
	}
	(void)b;
}

static const struct leak *sort_leaks;

static int leak_cmp(const void *a, const void *b)
{
	const struct leak *x = &sort_leaks[*(const size_t *)a],
			  *y = &sort_leaks[*(const size_t *)b];

	if (x->leaked != y->leaked)
		return x->leaked > y->leaked ? -1 : 1;
	if (x->site != y->site)
		return strcmp(sort_sites[x->site].uid, sort_sites[y->site].uid);
	return x->type < y->type ? -1 : x->type > y->type;
}

/* A site's object, the @i-th of its array, up to its leaks (@leaked bytes
 * in @blocks) and left open for what its caller adds. */
static void json_site_open(struct buf *o, size_t i, const struct site *s, unsigned long long leaked,
			   unsigned long long blocks)
{
	buf_adds(o, i ? ",{\"uid\":" : "{\"uid\":");
	buf_add_json_str(o, s->uid, strlen(s->uid));
	buf_addf(o,
		 ",\"allocations\":%llu,\"bytes\":%llu,\"temporary\":%llu,"
		 "\"peak\":%llu,\"leaked\":%llu,\"leaked_blocks\":%llu",
		 s->count, s->bytes, s->temporary, s->peak, leaked, blocks);
}

/* The leaks' stacks, largest first, into @idx (room for v->nleaks). */
static void top_leaks(const struct mem_view *v, size_t *idx)
{
	for (size_t i = 0; i < v->nleaks; i++)
		idx[i] = i;
	sort_leaks = v->leaks;
	sort_sites = v->sites;
	qsort(idx, v->nleaks, sizeof(*idx), leak_cmp);
}

static void print_leaks(const struct mem_view *v, size_t limit)
{
	size_t *idx = xmalloc((v->nleaks ? v->nleaks : 1) * sizeof(*idx));
	char a[32];

	top_leaks(v, idx);
	if (v->nleaks)
		printf("\nLeaks (never freed), by stack, largest first:\n");
	for (size_t i = 0; i < v->nleaks && i < limit; i++) {
		const struct leak *l = &v->leaks[idx[i]];

		printf("  %12s in %llu block%s  %s\n", human(l->leaked, a, sizeof(a)), l->blocks,
		       l->blocks == 1 ? "" : "s", v->sites[l->site].uid);
		print_trace(v, l->type);
	}
	free(idx);
}

static void text_report(const struct mem_view *v, const struct totals *t, const char *name,
			size_t limit)
{
	size_t *idx = xmalloc((v->nsites ? v->nsites : 1) * sizeof(*idx));
	char a[32], b[32];

	printf("Profile:               %s\n", name);
	printf("Command:               %s\n", v->p->cmd ? v->p->cmd : "");
	printf("Total allocated:       %s in %llu allocations", human(t->bytes, a, sizeof(a)),
	       t->allocs);
	if (t->allocs)
		printf(" (%s on average)", human(t->bytes / t->allocs, b, sizeof(b)));
	printf("\nReleases:              %llu\n", t->frees);
	printf("Temporary allocations: %llu (%.1f%%)\n", t->temporary,
	       t->allocs ? 100.0 * (double)t->temporary / (double)t->allocs : 0.0);
	if (t->peak_row != SIZE_MAX)
		printf("Peak heap:             %s at %s s\n", human(t->peak, a, sizeof(a)),
		       row_time(v, t->peak_row));
	else
		printf("Peak heap:             0 B\n");
	printf("Leaked:                %s in %llu block%s\n", human(t->leaked, a, sizeof(a)),
	       t->leaked_blocks, t->leaked_blocks == 1 ? "" : "s");
	print_leaks(v, limit);
	print_top(v, BY_COUNT, "Top sites by allocations", limit, idx);
	print_top(v, BY_BYTES, "Top sites by bytes allocated", limit, idx);
	print_top(v, BY_PEAK, "Top sites by memory held at the peak", limit, idx);
	free(idx);
}

static void json_sites(struct buf *o, const struct mem_view *v, enum order key, size_t limit,
		       size_t *idx)
{
	size_t n = top_sites(v, key, idx);

	buf_addc(o, '[');
	for (size_t i = 0; i < n && i < limit; i++) {
		const struct site *s = &v->sites[idx[i]];

		json_site_open(o, i, s, s->leaked, s->leaked_blocks);
		buf_addc(o, '}');
	}
	buf_addc(o, ']');
}

/* The leaks by stack: their site's figures, what the stack leaked, and
 * the stack itself. */
static void json_leaks(struct buf *o, const struct mem_view *v, size_t limit)
{
	size_t *idx = xmalloc((v->nleaks ? v->nleaks : 1) * sizeof(*idx));

	top_leaks(v, idx);
	buf_addc(o, '[');
	for (size_t i = 0; i < v->nleaks && i < limit; i++) {
		const struct leak *l = &v->leaks[idx[i]];
		const struct site *s = &v->sites[l->site];
		const char *trace = trace_text(v, l->type);

		json_site_open(o, i, s, l->leaked, l->blocks);
		buf_adds(o, ",\"trace\":");
		if (*trace == '[')
			buf_adds(o, trace);
		else
			buf_adds(o, "null");
		buf_addc(o, '}');
	}
	buf_addc(o, ']');
	free(idx);
}

static void json_report(const struct mem_view *v, const struct totals *t, const char *name,
			size_t limit)
{
	size_t *idx = xmalloc((v->nsites ? v->nsites : 1) * sizeof(*idx));
	struct buf o = BUF_INIT;
	const char *when = t->peak_row != SIZE_MAX ? row_time(v, t->peak_row) : "0";

	buf_adds(&o, "{\"profile\":");
	buf_add_json_str(&o, name, strlen(name));
	buf_addf(&o,
		 ",\"allocations\":%llu,\"releases\":%llu,\"bytes\":%llu,\"temporary\":%llu,"
		 "\"peak\":%llu,\"peak_time\":",
		 t->allocs, t->frees, t->bytes, t->temporary, t->peak);
	buf_add_json_str(&o, when, strlen(when));
	buf_addf(&o, ",\"leaked\":%llu,\"leaked_blocks\":%llu,\"leaks\":", t->leaked,
		 t->leaked_blocks);
	json_leaks(&o, v, limit);
	buf_adds(&o, ",\"by_count\":");
	json_sites(&o, v, BY_COUNT, limit, idx);
	buf_adds(&o, ",\"by_bytes\":");
	json_sites(&o, v, BY_BYTES, limit, idx);
	buf_adds(&o, ",\"by_peak\":");
	json_sites(&o, v, BY_PEAK, limit, idx);
	buf_adds(&o, "}\n");
	fwrite(o.data, 1, o.len, stdout);
	buf_release(&o);
	free(idx);
}

int show_memory(const struct profile *p, const char *name, const struct show_opts *o)
{
	struct mem_view v;
	struct totals t;
	size_t limit = o->limit ? o->limit : DEFAULT_TOP;

	if (!p->type || strcmp(p->type, "memory") != 0) {
		fprintf(stderr, "veles show: the memory view needs a memory profile, not %s\n",
			p->type ? p->type : "an untyped one");
		return -1;
	}
	view_init(&v, p);
	analyse(&v, &t);
	if (o->fmt == FORMAT_JSON)
		json_report(&v, &t, name, limit);
	else
		text_report(&v, &t, name, limit);
	for (size_t i = 0; i < v.nsites; i++)
		free(v.sites[i].uid);
	free(v.sites);
	free(v.leaks);
	strmap_free(&v.stacks);
	free(v.site);
	mem_events_close(&v.ev);
	strmap_free(&v.uids);
	return 0;
}
