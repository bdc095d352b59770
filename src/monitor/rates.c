/* Counters into rates, with the seed's wrap correction. */
#include <stdlib.h>
#include <string.h>

#include "monitor/monitor.h"
#include "util/common.h"

uint64_t mon_fix(uint64_t prev, uint64_t cur, unsigned width)
{
	if (cur >= prev)
		return cur - prev;
	/* Went down: it wrapped once at 2^width (unsigned arithmetic adds the
	 * 2^64 back by itself). A 32-bit counter above 2^32 was reset, not
	 * wrapped: count from zero. */
	if (width >= 64)
		return cur - prev;
	if (prev >> width)
		return cur;
	return ((uint64_t)1 << width) - prev + cur;
}

/* The increase of a 64-bit kernel counter: one going down was reset (an
 * interface or disk that came back, a cpu gone), as 2^64 is never reached;
 * it counts from zero rather than giving 2^64 less a little. */
static inline uint64_t up64(uint64_t prev, uint64_t cur)
{
	return cur >= prev ? cur - prev : cur;
}

/* The rate of one column from @prev to @cur; @mul is 1 / the divisor. */
static double col_rate(enum mon_col_kind kind, uint64_t prev, uint64_t cur, double mul)
{
	if (kind == MON_GAUGE)
		return (double)cur;
	if (cur >= prev)
		return (double)(cur - prev) * mul;
	if (kind == MON_COUNTER32_SUM)
		return (double)(uint32_t)(cur - prev) * mul;
	if (kind == MON_COUNTER64)
		return (double)up64(prev, cur) * mul;
	return (double)mon_fix(prev, cur, 32) * mul;
}

/* The row of @prev that matches row @i of @cur: the same index when the
 * names agree (the usual case), else a search from @hint (the row after
 * the last match) round to it, so tables whose rows come and go in the
 * same order (processes) are matched in one pass; -1 when it is new. */
static long match_row(const struct mon_table *prev, const struct mon_table *cur, size_t i,
		      size_t hint)
{
	if (i < prev->nrows && !strcmp(prev->names[i], cur->names[i]))
		return (long)i;
	for (size_t k = 0; k < prev->nrows; k++) {
		size_t j = (hint + k) % prev->nrows;

		if (!strcmp(prev->names[j], cur->names[i]))
			return (long)j;
	}
	return -1;
}

/* Playback marks tables whose row names did not change with the same
 * generation; live tables compare their names. */
static bool same_rows(const struct mon_table *prev, const struct mon_table *cur)
{
	if (prev->nrows != cur->nrows)
		return false;
	if (!cur->nrows)
		return true;
	if (cur->gen && cur->gen == prev->gen)
		return true;
	return !memcmp(prev->names, cur->names, cur->nrows * sizeof(*cur->names));
}

/* The kind every column of table @t has, or -1 when they differ; found
 * once per table. Most tables are all counters (cpu) or all gauges
 * (memory), and their rows then take a loop without a branch per column. */
static int common_kind(enum mon_tab t)
{
	static signed char kind[MT_COUNT];
	const struct mon_tabdef *d = &mon_tabdefs[t];

	if (!kind[t]) {
		int k0 = d->ncols ? (int)d->cols[0].kind : -1;

		for (size_t k = 1; k < d->ncols; k++)
			if ((int)d->cols[k].kind != k0)
				k0 = -1;
		kind[t] = (signed char)(k0 + 2); /* 0 stays "not yet known" */
	}
	return kind[t] - 2;
}

static void row_rates(int kind, const struct mon_tabdef *d, const uint64_t *p, const uint64_t *c,
		      double mul, double *out)
{
	size_t nc = d->ncols;

	if (kind == MON_GAUGE) {
		for (size_t k = 0; k < nc; k++)
			out[k] = (double)c[k];
	} else if (kind == MON_COUNTER64) {
		for (size_t k = 0; k < nc; k++)
			out[k] = (double)up64(p[k], c[k]) * mul;
	} else {
		for (size_t k = 0; k < nc; k++)
			out[k] = col_rate(d->cols[k].kind, p[k], c[k], mul);
	}
}

static void table_rates(struct mon_rates *r, enum mon_tab t, const struct mon_table *prev,
			const struct mon_table *cur, double mul)
{
	const struct mon_tabdef *d = &mon_tabdefs[t];
	size_t nc = d->ncols;
	bool same = same_rows(prev, cur);
	int kind = common_kind(t);

	if (r->cap < cur->nrows * nc) {
		r->cap = cur->nrows * nc;
		r->v = xrealloc(r->v, r->cap * sizeof(*r->v));
	}
	r->nrows = cur->nrows;
	for (size_t i = 0, hint = 0; i < cur->nrows; i++) {
		long j = same ? (long)i : match_row(prev, cur, i, hint);
		const uint64_t *c = cur->vals + i * nc;
		const uint64_t *p = j < 0 ? c : prev->vals + (size_t)j * nc;
		double *out = r->v + i * nc;

		if (j >= 0)
			hint = (size_t)j + 1;
		/* A new row (j < 0) is its own previous: zero rates. */
		row_rates(kind, d, p, c, mul, out);
	}
}

void mon_interval_compute(struct mon_interval *iv, const struct mon_sample *prev,
			  const struct mon_sample *cur)
{
	double div;

	iv->prev = prev;
	iv->cur = cur;
	iv->secs = cur->t - prev->t;
	div = iv->per_interval || iv->secs <= 0 ? 1.0 : iv->secs;
	for (int t = 0; t < MT_COUNT; t++)
		if (cur->present & (1u << t) || iv->rates[t].nrows) {
			table_rates(&iv->rates[t], (enum mon_tab)t, &prev->tab[t], &cur->tab[t],
				    1.0 / div);
		}
}

void mon_interval_release(struct mon_interval *iv)
{
	for (int t = 0; t < MT_COUNT; t++)
		free(iv->rates[t].v);
	memset(iv->rates, 0, sizeof(iv->rates));
}
