/*
 * `veles record --profile`: the samples as a Veles profile, so sampled
 * time is versioned like measured time. One resource type per distinct
 * stack: uid = the sampled function, subtype = its object file, trace =
 * its callers (outermost first, as {"func", "impl"} frames); one
 * measurement each, amount = samples, period = the events they stand for.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/perf/perf_profile.h"
#include "perf/datafile.h"
#include "perf/session.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/strmap.h"
#include "util/xalloc.h"

enum { TRACE_DEPTH = 32 };

struct stack {
	char *uid, *object, *trace; /* trace: compact JSON */
	uint64_t samples, period;
};

struct stacks {
	struct strmap keys;
	struct stack *v;
	size_t cap;
	char *comm; /* the first sample's command name */
};

static void add_frame(struct buf *b, const struct perf_loc *l, bool first)
{
	const char *f = perf_loc_sym(l), *o = perf_loc_dso(l);

	buf_adds(b, first ? "{\"func\":" : ",{\"func\":");
	buf_add_json_str(b, f, strlen(f));
	buf_adds(b, ",\"impl\":");
	buf_add_json_str(b, o, strlen(o));
	buf_adds(b, "}");
}

static void on_sample(const struct perf_sample *smp, void *arg)
{
	struct stacks *st = arg;
	struct buf trace = BUF_INIT;
	size_t depth = smp->nchain < TRACE_DEPTH ? smp->nchain : TRACE_DEPTH, i;
	char *key;
	bool added;

	if (!st->comm && smp->comm)
		st->comm = xstrdup(smp->comm);
	buf_adds(&trace, "[");
	for (i = depth; i-- > 0;)
		add_frame(&trace, &smp->chain[i], i + 1 == depth);
	buf_adds(&trace, "]");
	key = xasprintf("%s\x1f%s\x1f%s", perf_loc_sym(&smp->at), perf_loc_dso(&smp->at),
			trace.data);
	i = strmap_intern(&st->keys, key, &added);
	free(key);
	st->v = xgrow(st->v, sizeof(*st->v), i + 1, &st->cap);
	if (added)
		st->v[i] = (struct stack){xstrdup(perf_loc_sym(&smp->at)),
					  xstrdup(perf_loc_dso(&smp->at)), buf_detach(&trace, NULL),
					  0, 0};
	buf_release(&trace);
	st->v[i].samples++;
	st->v[i].period += smp->period;
}

static void fill_profile(struct profile *p, const struct stacks *st)
{
	struct column *amount, *period;

	table_col_get(p, &p->res, "amount", COL_I64);
	table_col_get(p, &p->res, "period", COL_I64);
	amount = table_col_get(p, &p->res, "amount", COL_I64);
	period = table_col_get(p, &p->res, "period", COL_I64);
	for (size_t i = 0; i < st->keys.n; i++) {
		const struct stack *s = &st->v[i];
		struct attr a[] = {
			{.name = "uid", .kind = COL_STR, .s = s->uid},
			{.name = "type", .kind = COL_STR, .s = "samples"},
			{.name = "subtype", .kind = COL_STR, .s = s->object},
			{.name = "trace", .kind = COL_JSON, .s = s->trace},
		};
		size_t row = profile_res_add(p, profile_type_add(p, a, ARRAY_SIZE(a)));

		col_set_i64(&p->res, amount, row, (int64_t)s->samples);
		col_set_i64(&p->res, period, row, (int64_t)s->period);
	}
}

static void fill_header(struct profile *p, const struct record_info *ri, const char *event)
{
	struct buf b = BUF_INIT;

	p->layout = LAYOUT_TYPED;
	p->type = xstrdup("samples");
	p->units = xcalloc(1, sizeof(*p->units));
	p->units[0] = (struct kv){xstrdup("samples"), xstrdup("samples")};
	p->nunits = 1;
	p->cmd = xstrdup(ri->argc ? ri->argv[0] : ri->label);
	for (int i = 1; i < ri->argc; i++)
		buf_addf(&b, "%s%s", i > 1 ? " " : "", ri->argv[i]);
	p->args = buf_detach(&b, NULL);
	p->workload = xstrdup(p->args);
	p->collector = xstrdup("record");
	buf_adds(&b, "{\"event\":");
	buf_add_json_str(&b, event, strlen(event));
	buf_addf(&b, ",\"%s\":%lu,\"call_graph\":%s}", ri->freq ? "freq" : "period",
		 ri->freq ? ri->freq : ri->period, ri->callchain ? "true" : "false");
	p->collector_params = buf_detach(&b, NULL);
	p->origin = ri->origin ? xstrdup(ri->origin) : NULL;
}

static void stacks_free(struct stacks *st)
{
	for (size_t i = 0; i < st->keys.n; i++) {
		free(st->v[i].uid);
		free(st->v[i].object);
		free(st->v[i].trace);
	}
	free(st->v);
	free(st->comm);
	strmap_free(&st->keys);
}

int record_load_profile(const struct record_info *ri, struct profile **out)
{
	struct perf_session *s;
	struct stacks st = {0};
	uint64_t lost;
	int ret = perf_session_open(ri->data_path, &s);

	if (ret < 0)
		return ret;
	ret = perf_session_samples(s, on_sample, &st, &lost);
	if (ret == 0) {
		const struct perf_data *d = perf_session_data(s);
		/* A recording shown as it is: what it was made with, from its header. */
		struct record_info from_file = {
			.data_path = ri->data_path,
			.label = st.comm ? st.comm : ri->label,
			.freq = d->h.freq ? d->h.period : 0,
			.period = d->h.freq ? 0 : d->h.period,
			.callchain = (d->h.sample_type & PERF_SAMPLE_CALLCHAIN) != 0,
		};

		*out = profile_new();
		fill_header(*out, ri->argc || ri->freq || ri->period ? ri : &from_file, d->event);
		fill_profile(*out, &st);
	}
	stacks_free(&st);
	perf_session_free(s);
	return ret < 0 ? ret : 0;
}

int record_save_profile(const struct record_info *ri, const char *jobs_dir, char **path)
{
	struct profile *p;
	int ret = record_load_profile(ri, &p);

	*path = NULL;
	if (ret < 0)
		return ret;
	ret = perf_profile_save(p, jobs_dir, "record", path);
	profile_free(p);
	return ret;
}

bool record_file_is_recording(const char *path)
{
	char magic[sizeof(PERF_DATA_MAGIC) - 1];
	FILE *f = fopen(path, "rb");
	bool yes = f && fread(magic, 1, sizeof(magic), f) == sizeof(magic) &&
		   memcmp(magic, PERF_DATA_MAGIC, sizeof(magic)) == 0;

	if (f)
		fclose(f);
	return yes;
}
