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

static double col_rate(const struct mon_col *c, uint64_t prev, uint64_t cur, double div)
{
	switch (c->kind) {
	case MON_GAUGE:
		return (double)cur;
	case MON_COUNTER32:
		return (double)mon_fix(prev, cur, 32) / div;
	default:
		return (double)mon_fix(prev, cur, 64) / div;
	}
}

/* The row of @prev that matches row @i of @cur: the same index when the
 * names agree (the usual case), else a search; -1 when it is new. */
static long match_row(const struct mon_table *prev, const struct mon_table *cur, size_t i)
{
	if (i < prev->nrows && !strcmp(prev->names[i], cur->names[i]))
		return (long)i;
	return mon_table_find(prev, cur->names[i]);
}

static void table_rates(struct mon_rates *r, const struct mon_tabdef *d,
			const struct mon_table *prev, const struct mon_table *cur, double div)
{
	size_t nc = d->ncols;

	if (r->cap < cur->nrows * nc) {
		r->cap = cur->nrows * nc;
		r->v = xrealloc(r->v, r->cap * sizeof(*r->v));
	}
	r->nrows = cur->nrows;
	for (size_t i = 0; i < cur->nrows; i++) {
		long j = match_row(prev, cur, i);
		const uint64_t *c = cur->vals + i * nc;
		double *out = r->v + i * nc;

		for (size_t k = 0; k < nc; k++)
			out[k] = j < 0 && d->cols[k].kind != MON_GAUGE
					 ? 0
					 : col_rate(&d->cols[k],
						    j < 0 ? 0 : prev->vals[(size_t)j * nc + k],
						    c[k], div);
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
		table_rates(&iv->rates[t], &mon_tabdefs[t], &prev->tab[t], &cur->tab[t], div);
}

void mon_interval_release(struct mon_interval *iv)
{
	for (int t = 0; t < MT_COUNT; t++)
		free(iv->rates[t].v);
	memset(iv->rates, 0, sizeof(iv->rates));
}

double mon_rate(const struct mon_interval *iv, enum mon_tab tab, size_t row, int col)
{
	const struct mon_rates *r = &iv->rates[tab];

	if (row >= r->nrows || col < 0)
		return 0;
	return r->v[row * mon_tabdefs[tab].ncols + (size_t)col];
}
