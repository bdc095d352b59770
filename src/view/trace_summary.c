/*
 * The summary of an aggregate trace profile (`veles collect trace
 * --aggregate`): per function, over its threads and processes, the calls,
 * the total and mean inclusive and exclusive time, and the percentiles
 * its histograms give (docs/views.md).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/hist.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "view/views.h"

static const double quantiles[] = {0.5, 0.9, 0.99};
#define NQ ARRAY_SIZE(quantiles)

struct fn_sum {
	uint32_t type;
	size_t row; /* its first resource, which names it */
	double calls, incl, excl, min, max;
	struct hist h;
	double q[NQ];
	bool bad; /* a histogram that does not parse: no percentiles */
};

struct trace_cols {
	const struct column *calls, *amount, *excl, *min, *max, *hist;
};

static bool trace_cols(const struct profile *p, struct trace_cols *c)
{
	c->calls = table_col(&p->res, "calls");
	c->amount = table_col(&p->res, "amount");
	c->excl = table_col(&p->res, "exclusive");
	c->min = table_col(&p->res, "min");
	c->max = table_col(&p->res, "max");
	c->hist = table_col(&p->res, "histogram");
	return c->calls && c->amount && c->hist && c->hist->kind == COL_JSON;
}

bool view_is_trace_aggregate(const struct profile *p)
{
	struct trace_cols c;

	return trace_cols(p, &c);
}

/* @v's cell as a number, NaN when absent. */
static double num(const struct column *c, size_t row)
{
	return c && col_has(c, row) ? col_num(c, row) : NAN;
}

static void add_row(const struct profile *p, const struct trace_cols *c, size_t row,
		    struct fn_sum *f)
{
	const char *h = col_has(c->hist, row) ? col_text(p, c->hist, row) : NULL;
	double v;

	f->calls += isnan(v = num(c->calls, row)) ? 0 : v;
	f->incl += isnan(v = num(c->amount, row)) ? 0 : v;
	f->excl += isnan(v = num(c->excl, row)) ? 0 : v;
	f->min = fmin(f->min, num(c->min, row)); /* fmin ignores a NaN */
	f->max = fmax(f->max, num(c->max, row));
	if (!h || hist_parse(h, &f->h) < 0)
		f->bad = true;
}

static int by_time(const void *a, const void *b)
{
	const struct fn_sum *x = a, *y = b;

	return x->incl < y->incl   ? 1
	       : x->incl > y->incl ? -1
				   : (x->type > y->type) - (x->type < y->type);
}

/* The functions that have calls, by total inclusive time, most first. */
static struct fn_sum *sum_functions(const struct profile *p, size_t *n)
{
	struct trace_cols c;
	size_t ntypes = p->types.nrows, nres = profile_nres(p), k = 0;
	struct fn_sum *f = xcalloc(ntypes ? ntypes : 1, sizeof(*f));
	bool *seen = xcalloc(ntypes ? ntypes : 1, sizeof(*seen));

	trace_cols(p, &c);
	for (size_t t = 0; t < ntypes; t++)
		f[t] = (struct fn_sum){.type = (uint32_t)t, .min = NAN, .max = NAN};
	for (size_t row = 0; row < nres; row++) {
		if (!seen[p->res_type[row]])
			f[p->res_type[row]].row = row;
		seen[p->res_type[row]] = true;
		add_row(p, &c, row, &f[p->res_type[row]]);
	}
	for (size_t t = 0; t < ntypes; t++) {
		if (!seen[t]) {
			hist_release(&f[t].h);
			continue;
		}
		for (size_t i = 0; i < NQ; i++)
			f[t].q[i] = f[t].bad ? NAN
					     : hist_percentile(&f[t].h, quantiles[i], f[t].min,
							       f[t].max);
		f[k++] = f[t];
	}
	free(seen);
	qsort(f, k, sizeof(*f), by_time);
	*n = k;
	return f;
}

static const char *unit(const struct profile *p)
{
	const char *u = profile_units(p, "mixed(time delta)");

	return u ? u : p->nunits == 1 ? p->units[0].value : "";
}

static void add_num(struct buf *out, double v, int w)
{
	if (isnan(v))
		buf_addf(out, " %*s", w, "-");
	else
		buf_addf(out, " %*.4g", w, v);
}

static void text(const struct profile *p, const char *name, const struct fn_sum *f, size_t n,
		 struct buf *out)
{
	static const char *const heads[] = {"calls", "total", "mean", "excl total", "excl mean",
					    "p50",   "p90",   "p99",  "min",	    "max"};
	struct buf uid = BUF_INIT;
	int w = 8;

	view_summary_header(p, name, n, false, out);
	for (size_t i = 0; i < n; i++) {
		int len = (int)strlen(profile_uid(p, f[i].row, &uid));

		w = len > w ? (len > 40 ? 40 : len) : w;
	}
	buf_addf(out,
		 "Times in %s; percentiles estimated from the histograms (`veles show PROFILE "
		 "histogram`)\n\n%-*s",
		 unit(p), w, "function");
	for (size_t i = 0; i < ARRAY_SIZE(heads); i++)
		buf_addf(out, " %*s", i ? 10 : 9, heads[i]);
	buf_addc(out, '\n');
	for (size_t i = 0; i < n; i++) {
		const struct fn_sum *s = &f[i];
		double v[] = {s->incl, s->incl / s->calls,
			      s->excl, s->excl / s->calls,
			      s->q[0], s->q[1],
			      s->q[2], s->min,
			      s->max};

		buf_addf(out, "%-*.*s %9.0f", w, w, profile_uid(p, s->row, &uid), s->calls);
		for (size_t k = 0; k < ARRAY_SIZE(v); k++)
			add_num(out, v[k], 10);
		buf_addc(out, '\n');
	}
	buf_release(&uid);
}

static void json_num(struct buf *b, const char *key, double v)
{
	if (isnan(v))
		buf_addf(b, ",\"%s\":null", key);
	else
		buf_addf(b, ",\"%s\":%.17g", key, v);
}

static void json(const struct profile *p, const char *name, const struct fn_sum *f, size_t n,
		 struct buf *b)
{
	struct buf uid = BUF_INIT;
	const char *u = unit(p);

	buf_adds(b, "{\"name\":");
	buf_add_json_str(b, name, strlen(name));
	buf_adds(b, ",\"unit\":");
	buf_add_json_str(b, u, strlen(u));
	buf_addf(b, ",\"resources\":%zu,\"functions\":[", profile_nres(p));
	for (size_t i = 0; i < n; i++) {
		const struct fn_sum *s = &f[i];
		const char *id = profile_uid(p, s->row, &uid);

		buf_adds(b, i ? ",{\"uid\":" : "{\"uid\":");
		buf_add_json_str(b, id, strlen(id));
		buf_addf(b, ",\"calls\":%.0f", s->calls);
		json_num(b, "total", s->incl);
		json_num(b, "mean", s->incl / s->calls);
		json_num(b, "exclusive_total", s->excl);
		json_num(b, "exclusive_mean", s->excl / s->calls);
		json_num(b, "p50", s->q[0]);
		json_num(b, "p90", s->q[1]);
		json_num(b, "p99", s->q[2]);
		json_num(b, "min", s->min);
		json_num(b, "max", s->max);
		buf_addc(b, '}');
	}
	buf_adds(b, "]}\n");
	buf_release(&uid);
}

void view_trace_summary(const struct profile *p, const char *name, bool as_json, struct buf *out)
{
	size_t n;
	struct fn_sum *f = sum_functions(p, &n);

	if (as_json)
		json(p, name, f, n, out);
	else
		text(p, name, f, n, out);
	for (size_t i = 0; i < n; i++)
		hist_release(&f[i].h);
	free(f);
}
