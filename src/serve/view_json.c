/*
 * The views of a profile's page that are data, not `show -o x.html`
 * pages: `show memory`'s report (view/mem_report.h), the heap map's frames
 * (view/heapmap.h) and the summary of an aggregate trace profile, as JSON
 * the page draws. `veles show` prints the same figures as text
 * (src/cli/show-memory.c, show-heapmap.c, show-trace.c); these are the
 * server's, from the same library data steps.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/hist.h"
#include "profile/profile.h"
#include "serve/api.h"
#include "serve/proj_view.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "view/heapmap.h"
#include "view/mem_report.h"

enum { TOP = 20, HM_COLS = 96, HM_ROWS = 32, HM_FRAMES = 2000 };

static bool is_memory(const struct profile *p)
{
	return p->type && strcmp(p->type, "memory") == 0;
}

struct site_order {
	const struct mem_site *sites;
	int key; /* 0 count, 1 bytes, 2 peak */
};

static unsigned long long site_key(const struct mem_site *s, int key)
{
	return key == 0 ? s->count : key == 1 ? s->bytes : s->peak;
}

/* Requests are served by several threads: the order is qsort_r's argument. */
static int site_cmp(const void *a, const void *b, void *arg)
{
	const struct site_order *o = arg;
	const struct mem_site *x = &o->sites[*(const size_t *)a];
	const struct mem_site *y = &o->sites[*(const size_t *)b];
	unsigned long long kx = site_key(x, o->key), ky = site_key(y, o->key);

	if (kx != ky)
		return kx > ky ? -1 : 1;
	return strcmp(x->uid, y->uid);
}

static void site_json(const struct mem_site *s, unsigned long long leaked,
		      unsigned long long blocks, struct buf *b)
{
	buf_adds(b, "{\"uid\":");
	buf_add_json_str(b, s->uid, strlen(s->uid));
	buf_addf(b,
		 ",\"allocations\":%llu,\"bytes\":%llu,\"temporary\":%llu,\"peak\":%llu,"
		 "\"leaked\":%llu,\"leaked_blocks\":%llu",
		 s->count, s->bytes, s->temporary, s->peak, leaked, blocks);
}

static void top_sites(const struct mem_report *r, int key, size_t *idx, struct buf *b)
{
	struct site_order o = {r->sites, key};
	size_t n = 0;

	for (size_t i = 0; i < r->nsites; i++)
		if (site_key(&r->sites[i], key))
			idx[n++] = i;
	qsort_r(idx, n, sizeof(*idx), site_cmp, &o);
	buf_addc(b, '[');
	for (size_t i = 0; i < n && i < TOP; i++) {
		const struct mem_site *s = &r->sites[idx[i]];

		buf_adds(b, i ? "," : "");
		site_json(s, s->leaked, s->leaked_blocks, b);
		buf_addc(b, '}');
	}
	buf_addc(b, ']');
}

static int leak_cmp(const void *a, const void *b, void *arg)
{
	const struct mem_leak *leaks = arg;
	const struct mem_leak *x = &leaks[*(const size_t *)a];
	const struct mem_leak *y = &leaks[*(const size_t *)b];

	if (x->leaked != y->leaked)
		return x->leaked > y->leaked ? -1 : 1;
	return x->type < y->type ? -1 : x->type > y->type;
}

static void leaks(const struct mem_report *r, size_t *idx, struct buf *b)
{
	for (size_t i = 0; i < r->nleaks; i++)
		idx[i] = i;
	qsort_r(idx, r->nleaks, sizeof(*idx), leak_cmp, (void *)r->leaks);
	buf_addc(b, '[');
	for (size_t i = 0; i < r->nleaks && i < TOP; i++) {
		const struct mem_leak *l = &r->leaks[idx[i]];
		const char *trace = mem_report_trace(r, l->type);

		buf_adds(b, i ? "," : "");
		site_json(&r->sites[l->site], l->leaked, l->blocks, b);
		buf_addf(b, ",\"trace\":%s}", *trace == '[' ? trace : "null");
	}
	buf_addc(b, ']');
}

int view_json_memory(const struct profile *p, struct buf *out)
{
	struct mem_report r;
	size_t *idx;

	if (!is_memory(p))
		return err_set(ERR_INVALID, "the memory view is for memory profiles");
	mem_report_build(p, &r);
	idx = xmalloc((r.nsites + r.nleaks + 1) * sizeof(*idx));
	buf_addf(out,
		 "{\"allocations\":%llu,\"releases\":%llu,\"bytes\":%llu,\"temporary\":%llu,"
		 "\"peak\":%llu,\"leaked\":%llu,\"leaked_blocks\":%llu,\"leaks\":",
		 r.t.allocs, r.t.frees, r.t.bytes, r.t.temporary, r.t.peak, r.t.leaked,
		 r.t.leaked_blocks);
	leaks(&r, idx, out);
	buf_adds(out, ",\"by_count\":");
	top_sites(&r, 0, idx, out);
	buf_adds(out, ",\"by_bytes\":");
	top_sites(&r, 1, idx, out);
	buf_adds(out, ",\"by_peak\":");
	top_sites(&r, 2, idx, out);
	buf_adds(out, "}\n");
	free(idx);
	mem_report_release(&r);
	return 0;
}

/* Every snapshot's frame: a string of levels (0-4), a row of cells after
 * another, with the bytes and blocks live at its end. */
int view_json_heapmap(const struct profile *p, struct buf *out)
{
	struct heapmap h;
	int ret = heapmap_build(p, &h);

	if (ret < 0)
		return ret;
	heapmap_layout(&h, HM_COLS, HM_ROWS);
	buf_addf(out,
		 "{\"pid\":%llu,\"first\":%lld,\"last\":%lld,\"peak\":%lld,\"cols\":%d,"
		 "\"rows\":%d,\"cell\":%llu,\"span\":%llu,\"row_addr\":[",
		 (unsigned long long)h.pid, (long long)h.first, (long long)h.last,
		 (long long)heapmap_peak(&h), h.cols, h.rows, (unsigned long long)h.cell,
		 (unsigned long long)h.span);
	for (int r = 0; r < h.rows; r++)
		buf_addf(out, "%s\"0x%llx\"", r ? "," : "",
			 (unsigned long long)heapmap_row_addr(&h, r));
	buf_adds(out, "],\"frames\":[");
	for (int64_t s = h.first; s <= h.last && s - h.first < HM_FRAMES; s++) {
		struct heapmap_frame f;
		size_t cells = (size_t)h.rows * (size_t)h.cols;

		heapmap_frame(&h, s, &f);
		buf_addf(out, "%s{\"snapshot\":%lld,\"bytes\":%llu,\"blocks\":%zu,\"cells\":\"",
			 s > h.first ? "," : "", (long long)s, (unsigned long long)f.bytes,
			 f.blocks);
		for (size_t i = 0; i < cells; i++)
			buf_addc(out, (char)('0' + f.level[i]));
		buf_adds(out, "\"}");
		free(f.level);
	}
	buf_adds(out, "]}\n");
	heapmap_release(&h);
	return 0;
}

/* One function of an aggregate trace profile, over its threads. */
struct fn_sum {
	size_t row;
	double calls, incl, excl, min, max;
	struct hist h;
	bool bad, seen;
};

static double num(const struct column *c, size_t row)
{
	return c && col_has(c, row) ? col_num(c, row) : NAN;
}

static void add_row(const struct profile *p, size_t row, struct fn_sum *f)
{
	const struct column *hc = table_col(&p->res, "histogram");
	const char *text = col_has(hc, row) ? col_text(p, hc, row) : NULL;
	double v;

	if (!f->seen)
		f->row = row;
	f->seen = true;
	f->calls += isnan(v = num(table_col(&p->res, "calls"), row)) ? 0 : v;
	f->incl += isnan(v = num(table_col(&p->res, "amount"), row)) ? 0 : v;
	f->excl += isnan(v = num(table_col(&p->res, "exclusive"), row)) ? 0 : v;
	f->min = fmin(f->min, num(table_col(&p->res, "min"), row));
	f->max = fmax(f->max, num(table_col(&p->res, "max"), row));
	if (!text || hist_parse(text, &f->h) < 0)
		f->bad = true;
}

static void key_num(struct buf *b, const char *key, double v)
{
	buf_addf(b, ",\"%s\":", key);
	json_num(b, v);
}

static void fn_json(const struct profile *p, struct fn_sum *f, struct buf *uid, struct buf *b)
{
	const char *id = profile_uid(p, f->row, uid);
	double q[3] = {NAN, NAN, NAN};

	for (int i = 0; i < 3 && !f->bad; i++)
		q[i] = hist_percentile(&f->h, i == 0 ? 0.5 : i == 1 ? 0.9 : 0.99, f->min, f->max);
	buf_adds(b, "{\"uid\":");
	buf_add_json_str(b, id, strlen(id));
	buf_addf(b, ",\"calls\":%.0f", f->calls);
	key_num(b, "total", f->incl);
	key_num(b, "mean", f->incl / f->calls);
	key_num(b, "exclusive_total", f->excl);
	key_num(b, "p50", q[0]);
	key_num(b, "p90", q[1]);
	key_num(b, "p99", q[2]);
	key_num(b, "min", f->min);
	key_num(b, "max", f->max);
	buf_addc(b, '}');
}

int view_json_trace(const struct profile *p, struct buf *out)
{
	const struct column *hc = table_col(&p->res, "histogram");
	size_t ntypes = p->types.nrows, nres = profile_nres(p);
	const char *unit = profile_units(p, "mixed(time delta)");
	struct fn_sum *f;
	struct buf uid = BUF_INIT;
	bool first = true;

	if (!hc || hc->kind != COL_JSON || !table_col(&p->res, "calls"))
		return err_set(ERR_INVALID, "the trace summary is for aggregate trace profiles "
					    "(veles collect trace --instrumented --aggregate)");
	f = xcalloc(ntypes ? ntypes : 1, sizeof(*f));
	for (size_t t = 0; t < ntypes; t++)
		f[t].min = f[t].max = NAN;
	for (size_t row = 0; row < nres; row++)
		add_row(p, row, &f[p->res_type[row]]);
	unit = unit ? unit : p->nunits == 1 ? p->units[0].value : "";
	buf_adds(out, "{\"unit\":");
	buf_add_json_str(out, unit, strlen(unit));
	buf_adds(out, ",\"functions\":[");
	for (size_t t = 0; t < ntypes; t++) {
		if (f[t].seen) {
			buf_adds(out, first ? "" : ",");
			fn_json(p, &f[t], &uid, out);
			first = false;
		}
		hist_release(&f[t].h);
	}
	buf_adds(out, "]}\n");
	free(f);
	buf_release(&uid);
	return 0;
}
