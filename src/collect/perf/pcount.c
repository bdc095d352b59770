/* Counting over intervals or the whole run (pcount.h). */
#include <stdlib.h>
#include <string.h>

#include "collect/perf/pcount.h"
#include "util/error.h"
#include "util/xalloc.h"

int pcount_events(struct pcount *c, const char *list)
{
	return perf_counters_add(&c->cs, list);
}

int pcount_open(struct pcount *c, const struct ptarget_spec *spec)
{
	struct perf_target t = {.kind = TARGET_SYSTEM};
	int ret = ptarget_open(&c->target, spec);

	if (ret < 0)
		return ret;
	if (c->target.tids)
		t = (struct perf_target){TARGET_PIDS, c->target.tids, c->target.ntids};
	else if (c->target.ch.pid && !spec->system_wide)
		t = (struct perf_target){TARGET_CHILD, &c->target.ch.pid, 1};
	return perf_counters_open(&c->cs, &t);
}

int pcount_start(struct pcount *c)
{
	clock_gettime(CLOCK_MONOTONIC, &c->start);
	return ptarget_start(&c->target);
}

static double since_ns(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e9 + (double)(b->tv_nsec - a->tv_nsec);
}

/* The counts since @prev (all zero for totals), scaled; @prev becomes now. */
static void take_values(const struct perf_counters *cs, struct pcount_value *prev,
			struct pcount_value *out)
{
	for (size_t i = 0; i < cs->n; i++) {
		const struct perf_counter *k = &cs->v[i];

		out[i].raw = k->value - prev[i].raw;
		out[i].enabled = k->enabled - prev[i].enabled;
		out[i].running = k->running - prev[i].running;
		out[i].value = perf_scaled(out[i].raw, out[i].enabled, out[i].running);
		prev[i] = (struct pcount_value){0, k->value, k->enabled, k->running};
	}
}

static struct timespec deadline(const struct timespec *start, unsigned long long ns)
{
	struct timespec d = *start;
	unsigned long long t = (unsigned long long)d.tv_nsec + ns;

	d.tv_sec += (time_t)(t / 1000000000ULL);
	d.tv_nsec = (long)(t % 1000000000ULL);
	return d;
}

/* Each deadline is start + k * interval, so a late wake-up never pushes the
 * following ones back. */
static int count_intervals(struct pcount *c, unsigned long interval_ms, pcount_fn fn, void *arg)
{
	struct pcount_value *prev = xcalloc(c->cs.n ? c->cs.n : 1, sizeof(*prev));
	struct pcount_value *v = xcalloc(c->cs.n ? c->cs.n : 1, sizeof(*v));
	unsigned long long step = (unsigned long long)interval_ms * 1000000ULL;
	struct timespec last = c->start, now = c->start;
	bool done = false;
	int ret = 0;

	for (unsigned long long k = 1; !done && ret == 0; k++) {
		struct timespec dl = deadline(&c->start, k * step);

		done = ptarget_wait(&c->target, &dl, NULL, 0);
		ret = perf_counters_read(&c->cs);
		clock_gettime(CLOCK_MONOTONIC, &now);
		take_values(&c->cs, prev, v);
		if (ret == 0 && fn)
			fn(arg, &c->cs, v, since_ns(&last, &now), since_ns(&c->start, &now) / 1e9);
		last = now;
	}
	c->elapsed = since_ns(&c->start, &now) / 1e9;
	free(prev);
	free(v);
	return ret;
}

static int count_totals(struct pcount *c, pcount_fn fn, void *arg)
{
	struct pcount_value *zero = xcalloc(c->cs.n ? c->cs.n : 1, sizeof(*zero));
	struct pcount_value *v = xcalloc(c->cs.n ? c->cs.n : 1, sizeof(*v));
	struct timespec end;
	int ret;

	while (!ptarget_wait(&c->target, NULL, NULL, 0))
		;
	clock_gettime(CLOCK_MONOTONIC, &end);
	c->elapsed = since_ns(&c->start, &end) / 1e9;
	ret = perf_counters_read(&c->cs);
	if (ret == 0 && fn) {
		take_values(&c->cs, zero, v);
		fn(arg, &c->cs, v, since_ns(&c->start, &end), c->elapsed);
	}
	free(zero);
	free(v);
	return ret;
}

int pcount_run(struct pcount *c, unsigned long interval_ms, pcount_fn fn, void *arg)
{
	int ret = interval_ms ? count_intervals(c, interval_ms, fn, arg) : count_totals(c, fn, arg);

	ptarget_reap(&c->target);
	return ret;
}

void pcount_free(struct pcount *c)
{
	ptarget_release(&c->target);
	perf_counters_free(&c->cs);
}
