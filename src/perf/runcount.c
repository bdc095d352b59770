/* Per-run task-clock, instructions and cycles (runcount.h). */
#include <math.h>
#include <string.h>

#include "perf/runcount.h"
#include "util/error.h"

/* :u for the PMU's counts: the program's own work, whatever the kernel
 * does for it (and what perf_event_paranoid 2 allows without root). */
static const char *const events[RC_N] = {"task-clock", "instructions:u", "cycles:u"};
static const char *const names[RC_N] = {"cpu", "instructions", "cycles"};

const char *perf_runcount_name(enum perf_runcount_kind k)
{
	return names[k];
}

static bool open_one(struct perf_counters *cs, int k)
{
	const struct perf_target t = {.kind = TARGET_SPAWNED};
	int ret = perf_counters_add(cs, events[k]);

	if (ret == 0)
		ret = perf_counters_open(cs, &t);
	if (ret == 0 && !cs->v[0].unsupported && cs->v[0].nfds == 1)
		return true;
	perf_counters_free(cs);
	return false;
}

void perf_runcount_open(struct perf_runcount *tc)
{
	memset(tc, 0, sizeof(*tc));
	for (int k = 0; k < RC_N; k++) {
		tc->have[k] = open_one(&tc->cs[k], k);
		perf_counters_free(&tc->cs[k]);
	}
	/* A counter we cannot have is not the collection's error. */
	err_clear();
}

/*
 * A fresh event per run: one kept open across runs was seen to miss whole
 * runs (a child's count not joining ours at its exit, one run in two on
 * Linux 6.18), while one opened just before the spawn never did.
 */
void perf_runcount_begin(struct perf_runcount *tc)
{
	for (int k = 0; k < RC_N; k++)
		if (tc->have[k])
			tc->live[k] = open_one(&tc->cs[k], k);
	err_clear();
}

void perf_runcount_end(struct perf_runcount *tc, double out[RC_N])
{
	for (int k = 0; k < RC_N; k++) {
		const struct perf_counter *c;

		out[k] = NAN;
		if (!tc->live[k])
			continue;
		c = &tc->cs[k].v[0];
		if (perf_counters_read(&tc->cs[k]) == 0)
			out[k] = perf_scaled(c->value, c->enabled, c->running) *
				 (k == RC_CPU ? 1e-9 : 1.0);
		perf_counters_free(&tc->cs[k]);
		tc->live[k] = false;
	}
	err_clear();
}

void perf_runcount_close(struct perf_runcount *tc)
{
	for (int k = 0; k < RC_N; k++)
		if (tc->live[k])
			perf_counters_free(&tc->cs[k]);
	memset(tc, 0, sizeof(*tc));
}
