/* libveles: two profiles side by side (`veles diff`) and a metric's
 * history (`veles log --perf`), as tables. */
#include <math.h>
#include <string.h>

#include "analyze/diff_join.h"
#include "analyze/history.h"
#include "api/api.h"
#include "project/history_load.h"
#include "util/common.h"
#include "util/error.h"

static int agg_parse(const char *name, enum diff_agg *out)
{
	static const char *const names[] = {"sum", "mean", "median", "min", "max", "count"};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (strcmp(name, names[i]) == 0) {
			*out = (enum diff_agg)i;
			return 0;
		}
	}
	return err_set(ERR_INVALID,
		       "aggregate wants sum, mean, median, min, max or count, not '%s'", name);
}

int veles_diff_profiles(const veles_profile *base, const veles_profile *target, const char *of,
			const char *group_by, const char *agg, veles_table **out)
{
	struct diff_join_opts o = {
		.agg = DIFF_MEDIAN, .sort = DIFF_BY_CHANGE, .of = of, .group_by = group_by};
	struct diff_rows rows;
	veles_table *t;
	int ret;

	*out = NULL;
	if (agg && (ret = agg_parse(agg, &o.agg)) < 0)
		return ret;
	if ((ret = diff_join(base->p, target->p, &o, &rows)) < 0)
		return ret;
	t = table_new(NULL);
	table_add(t, "name", VELES_STR);
	table_add(t, "baseline", VELES_F64);
	table_add(t, "target", VELES_F64);
	table_add(t, "rel_change", VELES_F64);
	for (size_t i = 0; i < rows.n; i++) {
		const struct diff_row *r = &rows.v[i];

		table_set_str(t, 0, i, r->name);
		if (!isnan(r->base))
			table_set_f64(t, 1, i, r->base);
		if (!isnan(r->target))
			table_set_f64(t, 2, i, r->target);
		if (!isnan(r->rel))
			table_set_f64(t, 3, i, r->rel);
	}
	diff_rows_free(&rows);
	table_finish(t);
	*out = t;
	return 0;
}

static const char *const history_cols[] = {
	"series", "title", "location", "unit", "version", "label",
	"median", "q1",	   "q3",       "n",    "change",  "shift",
};

static void add_point(veles_table *t, const struct history *h, size_t s, size_t row,
		      const struct history_point *p)
{
	const struct history_series *hs = &h->s[s];
	const struct history_version *v = &h->versions[p->version];

	table_set_i64(t, 0, row, (int64_t)s);
	table_set_str(t, 1, row, hs->title);
	table_set_str(t, 2, row, hs->location);
	table_set_str(t, 3, row, hs->unit);
	table_set_str(t, 4, row, v->id);
	table_set_str(t, 5, row, v->label);
	table_set_f64(t, 6, row, p->median);
	table_set_f64(t, 7, row, p->q1);
	table_set_f64(t, 8, row, p->q3);
	table_set_i64(t, 9, row, (int64_t)p->n);
	table_set_i64(t, 10, row, p->change);
	if (!isnan(p->shift))
		table_set_f64(t, 11, row, p->shift);
}

int veles_history(veles_project *pr, const char *rev, size_t limit, const char *match,
		  veles_table **out)
{
	struct history h = {0};
	veles_table *t;
	size_t row = 0;
	char from[41];
	int ret;

	*out = NULL;
	if (!pr)
		return err_set(ERR_INVALID, "a history needs a project");
	if (!match)
		return err_set(ERR_INVALID, "a history needs a location to match");
	if ((ret = project_version(&pr->pr, rev, from)) < 0)
		return ret;
	ret = history_load(pr->pr.vcs, pr->pr.store, from, limit, match, NULL, NULL, &h);
	if (ret < 0) {
		history_free(&h);
		return ret;
	}
	t = table_new(NULL);
	for (size_t i = 0; i < ARRAY_SIZE(history_cols); i++)
		table_add(t, history_cols[i],
			  i == 0 || i == 9 || i == 10 ? VELES_I64
			  : i >= 6		      ? VELES_F64
						      : VELES_STR);
	for (size_t s = 0; s < h.ns; s++)
		for (size_t i = 0; i < h.s[s].n; i++)
			add_point(t, &h, s, row++, &h.s[s].pts[i]);
	history_free(&h);
	table_finish(t);
	*out = t;
	return 0;
}
