/*
 * The data step of the histogram view: each function's "histogram" field
 * (an aggregate trace profile's, docs/collect-trace.md), over its threads
 * and processes, as a bars figure: one plot per function, a bar per
 * bucket, so every renderer draws it as it draws bars.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/hist.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "view/view_priv.h"

struct hfn {
	size_t row; /* its first resource, which names it */
	double time, min, max;
	struct hist h;
	bool bad;
};

static int by_edges(const void *a, const void *b)
{
	const struct hist_bucket *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->hi > y->hi) - (x->hi < y->hi);
}

/* Buckets in order, equal ones (the threads of one process) merged. */
static void merge(struct hist *h)
{
	size_t k = 0;

	if (!h->n)
		return;
	qsort(h->b, h->n, sizeof(*h->b), by_edges);
	for (size_t i = 1; i < h->n; i++) {
		if (h->b[i].lo == h->b[k].lo && h->b[i].hi == h->b[k].hi)
			h->b[k].n += h->b[i].n;
		else
			h->b[++k] = h->b[i];
	}
	h->n = k + 1;
}

static double cell(const struct column *c, size_t row)
{
	return c && col_has(c, row) ? col_num(c, row) : NAN;
}

/* The functions of the resources the filters keep, by time, most first. */
static struct hfn *gather(const struct profile *p, const struct view_opts *o, size_t *n)
{
	const struct column *hc = table_col(&p->res, "histogram");
	const struct column *amount = table_col(&p->res, "amount");
	const struct column *min = table_col(&p->res, "min"), *max = table_col(&p->res, "max");
	size_t ntypes = p->types.nrows, k = 0;
	struct hfn *f = xcalloc(ntypes + 1, sizeof(*f));
	bool *seen = xcalloc(ntypes + 1, sizeof(*seen));
	struct buf scratch = BUF_INIT;

	for (size_t t = 0; t < ntypes; t++)
		f[t] = (struct hfn){.min = NAN, .max = NAN};
	for (size_t row = 0; row < profile_nres(p); row++) {
		struct hfn *h = &f[p->res_type[row]];
		const char *text = col_has(hc, row) ? col_text(p, hc, row) : NULL;

		if (!text || !view_row_matches(p, row, o, &scratch))
			continue;
		if (!seen[p->res_type[row]])
			h->row = row;
		seen[p->res_type[row]] = true;
		h->time += isnan(cell(amount, row)) ? 0 : cell(amount, row);
		h->min = fmin(h->min, cell(min, row));
		h->max = fmax(h->max, cell(max, row));
		h->bad |= hist_parse(text, &h->h) < 0;
	}
	for (size_t t = 0; t < ntypes; t++)
		if (seen[t])
			f[k++] = f[t];
	free(seen);
	buf_release(&scratch);
	for (size_t i = 0; i + 1 < k; i++) /* few functions: insertion sort, stable */
		for (size_t j = i + 1; j > 0 && f[j].time > f[j - 1].time; j--) {
			struct hfn tmp = f[j];

			f[j] = f[j - 1];
			f[j - 1] = tmp;
		}
	*n = k;
	return f;
}

/* A bucket's label: its edges in a unit that reads, "80.35 \xe2\x80\x93 100.4 ms",
 * or as numbers when the profile's unit is not one of time. */
static char *bucket_label(double lo, double hi, double unit_s)
{
	struct buf b = BUF_INIT;

	if (unit_s > 0)
		axis_time_range(lo, hi, unit_s, &b);
	else
		buf_addf(&b, "%.4g \xe2\x80\x93 %.4g", lo, hi); /* en dash */
	return buf_detach(&b, NULL);
}

static void add_bar(struct vplot *pl, size_t *cap, double lo, double hi, double n, double unit_s)
{
	if (pl->nx == *cap) {
		XGROW(pl->xcat, pl->nx + 1, *cap);
		XRESIZE(pl->x, *cap);
		XRESIZE(pl->s[0].y, *cap);
	}
	pl->xcat[pl->nx] = bucket_label(lo, hi, unit_s);
	pl->x[pl->nx] = (double)pl->nx;
	pl->s[0].y[pl->nx++] = n;
}

/* ", p50 138.4 ns, p90 146.7 ns, p99 179.1 ns" */
static void add_percentiles(const struct hfn *h, const char *unit, struct buf *b)
{
	static const double q[] = {0.5, 0.9, 0.99};
	double unit_s = axis_time_unit(unit);

	for (size_t i = 0; i < ARRAY_SIZE(q); i++) {
		double v = hist_percentile(&h->h, q[i], h->min, h->max);

		buf_addf(b, ", p%.0f ", q[i] * 100);
		if (unit_s > 0)
			axis_time(v, unit_s, b);
		else
			buf_addf(b, "%.4g%s%s", v, *unit ? " " : "", unit);
	}
}

/* A bar per bucket, and an empty one for each range no bucket covers. */
static void plot_of(const struct profile *p, const struct hfn *h, const char *unit,
		    struct vplot *pl)
{
	double total = hist_total(&h->h), unit_s = axis_time_unit(unit);
	size_t cap = 0;
	struct buf b = BUF_INIT, uid = BUF_INIT;

	pl->ns = 1;
	pl->s = xcalloc(1, sizeof(*pl->s));
	pl->s[0].label = xstrdup("calls");
	for (size_t i = 0; i < h->h.n; i++) {
		if (i && h->h.b[i].lo > h->h.b[i - 1].hi)
			add_bar(pl, &cap, h->h.b[i - 1].hi, h->h.b[i].lo, 0, unit_s);
		add_bar(pl, &cap, h->h.b[i].lo, h->h.b[i].hi, h->h.b[i].n, unit_s);
	}
	buf_addf(&b, "%s: %.0f calls", profile_uid(p, h->row, &uid), total);
	buf_release(&uid);
	if (!h->bad && total > 0)
		add_percentiles(h, unit, &b);
	pl->title = buf_detach(&b, NULL);
	/* Each bar names its unit; an axis of another unit says it. */
	pl->xlabel = unit_s > 0 ? xstrdup("inclusive time") : xasprintf("inclusive time, %s", unit);
	pl->ylabel = unit_s > 0 ? xstrdup("calls by inclusive time")
				: xasprintf("calls by inclusive time (%s)", unit);
}

int view_build_histogram(const struct profile *p, const struct view_opts *o, struct vfigure *f)
{
	const struct column *hc = table_col(&p->res, "histogram");
	const char *unit = profile_units(p, "mixed(time delta)");
	size_t n, shown;
	struct hfn *h;

	if (!hc || hc->kind != COL_JSON)
		return err_set(ERR_INVALID, "the histogram view needs histograms: collect with "
					    "`veles collect trace --instrumented --aggregate`");
	h = gather(p, o, &n);
	shown = o->limit && o->limit < n ? o->limit : n;
	f->kind = VIEW_BARS;
	f->title =
		o->title ? xstrdup(o->title)
			 : xasprintf("histogram of %s", p->cmd && *p->cmd ? p->cmd : "the profile");
	f->n = shown;
	f->plots = xcalloc(shown + 1, sizeof(*f->plots));
	for (size_t i = 0; i < n; i++) {
		if (i < shown) {
			merge(&h[i].h);
			plot_of(p, &h[i], unit ? unit : "us", &f->plots[i]);
		}
		hist_release(&h[i].h);
	}
	free(h);
	if (!shown)
		return err_set(ERR_NOTFOUND, "no resource with a histogram%s",
			       o->nfilters ? " passes the filters" : "");
	return 0;
}
