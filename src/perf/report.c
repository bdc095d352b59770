/* Where samples fell, by function, caller and stack (report.h). */
#include <stdlib.h>
#include <string.h>

#include "perf/report.h"
#include "util/buf.h"
#include "util/xalloc.h"

static void add_caller(struct perf_report_entry *e, const struct perf_sample *smp)
{
	struct buf b = BUF_INIT;
	bool added;
	size_t i;

	for (i = 0; i < smp->nchain && i < PERF_REPORT_CALLER_DEPTH; i++)
		buf_addf(&b, "%s%s", i ? " <- " : "", perf_loc_sym(&smp->chain[i]));
	if (!b.len)
		buf_adds(&b, "[no callers]");
	i = strmap_intern(&e->callers, b.data, &added);
	e->caller_period = xgrow(e->caller_period, sizeof(uint64_t), i + 1, &e->caller_cap);
	if (added)
		e->caller_period[i] = 0;
	e->caller_period[i] += smp->period;
	buf_release(&b);
}

void perf_report_add(struct perf_report *r, const struct perf_sample *smp)
{
	const char *dso = perf_loc_dso(&smp->at), *sym = perf_loc_sym(&smp->at);
	char *key = xasprintf("%s\x1f%s\x1f%s\x1f%d", smp->comm, dso, sym, smp->at.kernel);
	bool added;
	size_t i = strmap_intern(&r->keys, key, &added);

	free(key);
	if (added) {
		r->v = xgrow(r->v, sizeof(*r->v), i + 1, &r->cap);
		r->v[i] = (struct perf_report_entry){.comm = xstrdup(smp->comm),
						     .dso = xstrdup(dso),
						     .sym = xstrdup(sym),
						     .kernel = smp->at.kernel};
		r->n = i + 1;
	}
	r->v[i].period += smp->period;
	r->v[i].samples++;
	r->total += smp->period;
	r->samples++;
	add_caller(&r->v[i], smp);
}

static int by_period(const void *a, const void *b)
{
	const struct perf_report_entry *x = a, *y = b;

	return x->period > y->period ? -1 : x->period < y->period;
}

void perf_report_sort(struct perf_report *r)
{
	if (r->n > 1) /* r->v is NULL when there is no sample */
		qsort(r->v, r->n, sizeof(*r->v), by_period);
	r->sorted = true;
}

struct ranked {
	uint64_t period;
	size_t i;
};

static int by_rank(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	return x->i < y->i ? -1 : 1;
}

size_t *perf_report_top(const struct perf_report *r, size_t max, size_t *n)
{
	struct ranked *rk = xcalloc(r->n ? r->n : 1, sizeof(*rk));
	size_t *ix = xcalloc(r->n ? r->n : 1, sizeof(*ix));

	for (size_t i = 0; i < r->n; i++)
		rk[i] = (struct ranked){r->v[i].period, i};
	if (r->n > 1)
		qsort(rk, r->n, sizeof(*rk), by_rank);
	*n = r->n < max ? r->n : max;
	for (size_t i = 0; i < *n; i++)
		ix[i] = rk[i].i;
	free(rk);
	return ix;
}

static int by_caller_period(const void *a, const void *b)
{
	const struct perf_report_caller *x = a, *y = b;

	return x->period > y->period ? -1 : x->period < y->period;
}

struct perf_report_caller *perf_report_callers(const struct perf_report_entry *e, size_t *n)
{
	struct perf_report_caller *c = xcalloc(e->callers.n ? e->callers.n : 1, sizeof(*c));

	for (size_t j = 0; j < e->callers.cap; j++)
		if (e->callers.keys[j])
			c[e->callers.vals[j]] = (struct perf_report_caller){
				e->callers.keys[j], e->caller_period[e->callers.vals[j]]};
	*n = e->callers.n;
	if (*n > 1)
		qsort(c, *n, sizeof(*c), by_caller_period);
	return c;
}

double perf_report_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

void perf_report_free(struct perf_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		strmap_free(&r->v[i].callers);
		free(r->v[i].caller_period);
		free(r->v[i].comm);
		free(r->v[i].dso);
		free(r->v[i].sym);
	}
	free(r->v);
	strmap_free(&r->keys);
	memset(r, 0, sizeof(*r));
}

void perf_folded_add(struct perf_folded *f, const struct perf_sample *smp)
{
	struct buf b = BUF_INIT;
	bool added;
	size_t i;

	buf_adds(&b, smp->comm);
	for (i = smp->nchain; i-- > 0;)
		buf_addf(&b, ";%s", perf_loc_sym(&smp->chain[i]));
	buf_addf(&b, ";%s", perf_loc_sym(&smp->at));
	i = strmap_intern(&f->stacks, b.data, &added);
	f->count = xgrow(f->count, sizeof(*f->count), i + 1, &f->cap);
	if (added)
		f->count[i] = 0;
	f->count[i]++;
	buf_release(&b);
}

static int by_text(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char **perf_folded_sorted(const struct perf_folded *f, size_t *n)
{
	const char **keys = xcalloc(f->stacks.n ? f->stacks.n : 1, sizeof(*keys));

	*n = 0;
	for (size_t j = 0; j < f->stacks.cap; j++)
		if (f->stacks.keys[j])
			keys[(*n)++] = f->stacks.keys[j];
	if (*n > 1)
		qsort(keys, *n, sizeof(*keys), by_text);
	return keys;
}

uint64_t perf_folded_count(const struct perf_folded *f, const char *stack)
{
	size_t i = strmap_get(&f->stacks, stack);

	return i == SIZE_MAX ? 0 : f->count[i];
}

void perf_folded_free(struct perf_folded *f)
{
	free(f->count);
	strmap_free(&f->stacks);
	memset(f, 0, sizeof(*f));
}
