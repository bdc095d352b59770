/*
 * `veles stat --profile`: the counts as a Veles profile, so counters are
 * versioned like times. One resource type per event (uid = the event's
 * name); one measurement per event for a plain run, or per event and
 * interval with -I (with "timestamp", the interval's end in seconds).
 */
#include <stdlib.h>
#include <string.h>

#include "collect/perf/perf_profile.h"
#include "perf/counters.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/xalloc.h"

static const char *const cols[] = {"amount", "raw", "enabled-ns", "running-ns", "timestamp"};

static uint32_t *add_types(struct profile *p, const struct perf_counters *cs)
{
	uint32_t *types = xcalloc(cs->n ? cs->n : 1, sizeof(*types));

	for (size_t i = 0; i < cs->n; i++) {
		bool clock = cs->v[i].attr.type == PERF_TYPE_SOFTWARE &&
			     (cs->v[i].attr.config == PERF_COUNT_SW_TASK_CLOCK ||
			      cs->v[i].attr.config == PERF_COUNT_SW_CPU_CLOCK);
		struct attr a[] = {
			{.name = "uid", .kind = COL_STR, .s = cs->v[i].name},
			{.name = "type", .kind = COL_STR, .s = "counter"},
			{.name = "subtype", .kind = COL_STR, .s = clock ? "ns" : "count"},
		};
		types[i] = profile_type_add(p, a, ARRAY_SIZE(a));
	}
	return types;
}

static void add_rows(struct profile *p, const struct stat_run *run, const uint32_t *types,
		     const struct perf_counters *cs)
{
	struct column *c[ARRAY_SIZE(cols)];

	/* Create every column before taking pointers: adding one may move them. */
	for (size_t k = 0; k < ARRAY_SIZE(cols); k++)
		table_col_get(p, &p->res, cols[k], k == 0 || k == 4 ? COL_F64 : COL_I64);
	for (size_t k = 0; k < ARRAY_SIZE(cols); k++)
		c[k] = table_col_get(p, &p->res, cols[k], k == 0 || k == 4 ? COL_F64 : COL_I64);
	for (size_t r = 0; r < run->nrecs; r++) {
		const struct stat_record *rec = &run->recs[r];
		size_t row;

		if (cs->v[rec->counter].unsupported || !rec->s.running)
			continue;
		row = profile_res_add(p, types[rec->counter]);
		col_set_f64(&p->res, c[0], row, rec->s.value);
		col_set_i64(&p->res, c[1], row, (int64_t)rec->s.raw);
		col_set_i64(&p->res, c[2], row, (int64_t)rec->s.enabled);
		col_set_i64(&p->res, c[3], row, (int64_t)rec->s.running);
		if (run->interval_ms)
			col_set_f64(&p->res, c[4], row, rec->t);
	}
}

static void fill_header(struct profile *p, const struct stat_run *run, const char *origin)
{
	struct buf b = BUF_INIT;

	/* Typed layout: raw, enabled-ns and running-ns stay per measurement. */
	p->layout = LAYOUT_TYPED;
	p->type = xstrdup("counters");
	p->units = xcalloc(1, sizeof(*p->units));
	p->units[0] = (struct kv){xstrdup("counter"), xstrdup("count")};
	p->nunits = 1;
	p->cmd = xstrdup(run->argc ? run->argv[0] : run->label);
	for (int i = 1; i < run->argc; i++)
		buf_addf(&b, "%s%s", i > 1 ? " " : "", run->argv[i]);
	p->args = buf_detach(&b, NULL);
	p->workload = xstrdup(p->args);
	p->collector = xstrdup("stat");
	buf_adds(&b, "{\"events\":");
	buf_add_json_str(&b, run->events, strlen(run->events));
	buf_addf(&b, ",\"interval_ms\":%lu}", run->interval_ms);
	p->collector_params = buf_detach(&b, NULL);
	p->origin = origin ? xstrdup(origin) : NULL;
	p->has_timestamp = true;
	p->timestamp = run->elapsed;
}

struct profile *stat_profile(const struct stat_run *run, const struct perf_counters *cs,
			     const char *origin)
{
	struct profile *p = profile_new();
	uint32_t *types = add_types(p, cs);

	fill_header(p, run, origin);
	add_rows(p, run, types, cs);
	free(types);
	return p;
}

int stat_save_profile(const struct stat_run *run, const struct perf_counters *cs,
		      const char *jobs_dir, const char *origin, char **path)
{
	struct profile *p = stat_profile(run, cs, origin);
	int ret = perf_profile_save(p, jobs_dir, "stat", path);

	profile_free(p);
	return ret;
}
