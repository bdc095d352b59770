/* Derived ratios of counts, as perf stat shows them. */
#include "perf/metrics.h"

static const struct perf_metric none = {0, NULL};

static bool is_event(const struct perf_counter *c, uint32_t type, uint64_t config)
{
	return c->attr.type == type && c->attr.config == config;
}

/* The count of the first counted event (@type, @config), or NULL. */
static const struct perf_count *find(const struct perf_counters *cs,
				     const struct perf_count *counts, uint32_t type,
				     uint64_t config)
{
	for (size_t i = 0; i < cs->n; i++)
		if (counts[i].counted && is_event(&cs->v[i], type, config))
			return &counts[i];
	return NULL;
}

bool perf_is_clock(const struct perf_counter *c)
{
	return is_event(c, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK) ||
	       is_event(c, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
}

/* Events per second, with perf's K/M/G steps. */
static struct perf_metric rate(double v, double secs)
{
	static const char *const units[] = {"/sec", "K/sec", "M/sec", "G/sec"};
	double r = secs > 0 ? v / secs : 0;
	size_t u = 0;

	while (r >= 1000 && u + 1 < sizeof(units) / sizeof(units[0])) {
		r /= 1000;
		u++;
	}
	return (struct perf_metric){r, units[u]};
}

static struct perf_metric ratio(const struct perf_count *den, double num, double scale,
				const char *unit)
{
	if (!den || den->value <= 0)
		return none;
	return (struct perf_metric){num / den->value * scale, unit};
}

static struct perf_metric hw_metric(const struct perf_counters *cs, const struct perf_count *counts,
				    uint64_t config, double v)
{
	const uint32_t HW = PERF_TYPE_HARDWARE;
	const struct perf_count *cycles = find(cs, counts, HW, PERF_COUNT_HW_CPU_CYCLES);

	switch (config) {
	case PERF_COUNT_HW_INSTRUCTIONS:
		return ratio(cycles, v, 1, "insn per cycle");
	case PERF_COUNT_HW_CPU_CYCLES:
		return ratio(find(cs, counts, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK), v, 1,
			     "GHz");
	case PERF_COUNT_HW_BRANCH_MISSES:
		return ratio(find(cs, counts, HW, PERF_COUNT_HW_BRANCH_INSTRUCTIONS), v, 100,
			     "% of all branches");
	case PERF_COUNT_HW_CACHE_MISSES:
		return ratio(find(cs, counts, HW, PERF_COUNT_HW_CACHE_REFERENCES), v, 100,
			     "% of all cache refs");
	case PERF_COUNT_HW_STALLED_CYCLES_FRONTEND:
		return ratio(cycles, v, 100, "% frontend cycles idle");
	case PERF_COUNT_HW_STALLED_CYCLES_BACKEND:
		return ratio(cycles, v, 100, "% backend cycles idle");
	default:
		return none;
	}
}

struct perf_metric perf_metric(const struct perf_counters *cs, const struct perf_count *counts,
			       size_t i, double span_ns)
{
	const struct perf_counter *c = &cs->v[i];
	const struct perf_count *task =
		find(cs, counts, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	double v = counts[i].value;

	if (!counts[i].counted)
		return none;
	if (perf_is_clock(c))
		return ratio(&(struct perf_count){span_ns, true}, v, 1, "CPUs utilized");
	if (c->attr.type == PERF_TYPE_SOFTWARE && c->attr.config != PERF_COUNT_SW_DUMMY)
		return rate(v, (task ? task->value : span_ns) / 1e9);
	if (c->attr.type == PERF_TYPE_HARDWARE)
		return hw_metric(cs, counts, c->attr.config, v);
	if (c->attr.type == PERF_TYPE_HW_CACHE &&
	    (c->attr.config >> 16) == PERF_COUNT_HW_CACHE_RESULT_MISS)
		/* X-load-misses over X-loads: the same cache and operation, accesses. */
		return ratio(find(cs, counts, PERF_TYPE_HW_CACHE, c->attr.config & 0xffff), v, 100,
			     "% of all accesses");
	return none;
}
