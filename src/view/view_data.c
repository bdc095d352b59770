/* The data step of bars and flow: resources filtered, grouped by --per and
 * --by, and each group's --of values aggregated. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/stats.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/strpool.h"
#include "view/view_priv.h"

const char *view_value(const struct profile *p, size_t row, const char *key, struct buf *scratch,
		       double *num)
{
	const struct table *where;
	const struct column *c;
	const char *t;
	size_t at;

	*num = NAN;
	buf_reset(scratch);
	if (strcmp(key, "uid") == 0)
		return profile_uid(p, row, scratch);
	c = profile_attr(p, row, key, &where, &at);
	if (!c || !col_has(c, at))
		return "";
	if (c->kind == COL_I64 || c->kind == COL_F64) {
		*num = col_num(c, at);
		buf_addf(scratch, "%.10g", *num);
		return buf_str(scratch);
	}
	t = col_text(p, c, at);
	return t ? t : "";
}

bool view_has_key(const struct profile *p, const char *key)
{
	return strcmp(key, "uid") == 0 || table_col(&p->res, key) || table_col(&p->types, key);
}

bool view_row_matches(const struct profile *p, size_t row, const struct view_opts *o,
		      struct buf *scratch)
{
	size_t i;

	for (i = 0; i < o->nfilters; i++) {
		double num;
		const char *v = view_value(p, row, o->filters[i].key, scratch, &num);
		char *end;
		double want = strtod(o->filters[i].value, &end);

		if (!isnan(num) && *o->filters[i].value && !*end) {
			if (num != want)
				return false;
		} else if (strcmp(v, o->filters[i].value) != 0) {
			return false;
		}
	}
	return true;
}

double view_aggregate(enum view_agg a, double *v, size_t n)
{
	double r;
	size_t i;

	if (a == AGG_COUNT)
		return (double)n;
	if (!n)
		return NAN;
	if (a == AGG_MEDIAN)
		return stats_median_sort(v, n);
	r = v[0];
	for (i = 1; i < n; i++) {
		if (a == AGG_MIN)
			r = v[i] < r ? v[i] : r;
		else if (a == AGG_MAX)
			r = v[i] > r ? v[i] : r;
		else
			r += v[i];
	}
	return a == AGG_MEAN ? r / (double)n : r;
}

/* Bars and flow keep a dense grid of x values by series: beyond this many
 * cells (128 MiB of doubles) no rendering could show them anyway. */
#define VIEW_MAX_CELLS (16.0 * 1024 * 1024)

/* One measurement, placed: its x category, its series, its value. */
struct cellval {
	uint32_t xi, gi;
	double v;
};

/* The distinct values of one key, in display order. */
struct keyset {
	struct strpool *sp;
	size_t n;
	uint32_t *order; /* position -> pool id */
	uint32_t *pos;	 /* pool id -> position */
	double *num;	 /* position -> number, NaN when the key is not numeric */
	bool numeric;
};

static int cmp_by_text(const void *a, const void *b, void *pool)
{
	return strcmp(strpool_get(pool, *(const uint32_t *)a),
		      strpool_get(pool, *(const uint32_t *)b));
}

static int cmp_by_num(const void *a, const void *b, void *pool)
{
	double x = strtod(strpool_get(pool, *(const uint32_t *)a), NULL);
	double y = strtod(strpool_get(pool, *(const uint32_t *)b), NULL);

	return x < y ? -1 : x > y;
}

/* Numbers sort by value, anything else by name. */
static void keyset_order(struct keyset *k)
{
	size_t i, ids = strpool_count(k->sp);

	k->n = ids - 1; /* id 0 is the empty string, never a value here */
	k->order = xcalloc(k->n + 1, sizeof(*k->order));
	k->pos = xcalloc(ids, sizeof(*k->pos));
	k->num = xcalloc(k->n + 1, sizeof(*k->num));
	k->numeric = true;
	for (i = 0; i < k->n; i++) {
		char *end;
		const char *s = strpool_get(k->sp, (uint32_t)i + 1);

		k->order[i] = (uint32_t)i + 1;
		strtod(s, &end);
		if (*end)
			k->numeric = false;
	}
	qsort_r(k->order, k->n, sizeof(*k->order), k->numeric ? cmp_by_num : cmp_by_text, k->sp);
	for (i = 0; i < k->n; i++) {
		k->pos[k->order[i]] = (uint32_t)i;
		k->num[i] = k->numeric ? strtod(strpool_get(k->sp, k->order[i]), NULL) : NAN;
	}
}

static void keyset_release(struct keyset *k)
{
	strpool_free(k->sp);
	free(k->order);
	free(k->pos);
	free(k->num);
}

static int check_keys(const struct profile *p, const struct view_opts *o, const char *per,
		      const char *by)
{
	const char *keys[3] = {o->of, per, by};
	size_t i;

	for (i = 0; i < 3; i++)
		if (keys[i] && !view_has_key(p, keys[i]))
			return err_set(ERR_NOTFOUND, "the profile has no key '%s'", keys[i]);
	return 0;
}

/* Reads every matching resource into @cv; fills the key sets. */
static size_t collect_cells(const struct profile *p, const struct view_opts *o, const char *per,
			    const char *by, struct keyset *xs, struct keyset *gs,
			    struct cellval **cv)
{
	struct buf s1 = BUF_INIT, s2 = BUF_INIT;
	size_t i, n = 0, cap = 0, nres = profile_nres(p);
	struct buf label = BUF_INIT; /* the one series' name without --by */

	buf_addf(&label, "%s(%s)", view_agg_name(o->agg), o->of);
	for (i = 0; i < nres; i++) {
		double xnum, y, gnum;
		const char *x, *g;

		if (!view_row_matches(p, i, o, &s1))
			continue;
		view_value(p, i, o->of, &s1, &y);
		if (isnan(y) && o->agg != AGG_COUNT)
			continue;
		x = view_value(p, i, per, &s1, &xnum);
		if (!*x)
			continue;
		XGROW(*cv, n + 1, cap);
		(*cv)[n].xi = strpool_intern_cstr(xs->sp, x);
		g = by ? view_value(p, i, by, &s2, &gnum) : buf_str(&label);
		(*cv)[n].gi = strpool_intern_cstr(gs->sp, *g ? g : "-");
		(*cv)[n++].v = y;
	}
	buf_release(&s1);
	buf_release(&s2);
	buf_release(&label);
	return n;
}

/* "sum(amount) [us]", "running sum(amount) [us]" */
static char *unit_label(const struct profile *p, const char *key, const char *agg, bool running)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s%s(%s)", running ? "running " : "", agg, key);
	if (strcmp(key, "amount") == 0 && p->nunits == 1 && strcmp(agg, "count") != 0)
		buf_addf(&b, " [%s]", p->units[0].value);
	return buf_detach(&b, NULL);
}

/* Aggregates each (x, series) cell: counting sort by cell, then one pass. */
static void fill_series(const struct view_opts *o, struct cellval *cv, size_t n,
			const struct keyset *xs, const struct keyset *gs, struct vplot *pl)
{
	size_t ncell = xs->n * gs->n, i, c;
	size_t *start = xcalloc(ncell + 1, sizeof(*start));
	double *vals = xmalloc((n ? n : 1) * sizeof(*vals));

	for (i = 0; i < n; i++)
		start[xs->pos[cv[i].xi] * gs->n + gs->pos[cv[i].gi] + 1]++;
	for (c = 0; c < ncell; c++)
		start[c + 1] += start[c];
	for (i = 0; i < n; i++) {
		size_t cell = xs->pos[cv[i].xi] * gs->n + gs->pos[cv[i].gi];

		vals[start[cell]++] = cv[i].v;
	}
	/* start[c] is now where cell c ends */
	for (c = 0; c < ncell; c++) {
		size_t from = c ? start[c - 1] : 0;
		double v = view_aggregate(o->agg, vals + from, start[c] - from);

		pl->s[c % gs->n].y[c / gs->n] = start[c] == from ? NAN : v;
	}
	free(start);
	free(vals);
}

static void plot_from_keys(const struct profile *p, const struct view_opts *o, const char *per,
			   const struct keyset *xs, const struct keyset *gs, struct vplot *pl)
{
	size_t i;

	pl->nx = xs->n;
	pl->x = xcalloc(xs->n + 1, sizeof(*pl->x));
	for (i = 0; i < xs->n; i++)
		pl->x[i] = xs->numeric ? xs->num[i] : (double)i;
	if (!xs->numeric || o->kind == VIEW_BARS) {
		pl->xcat = xcalloc(xs->n + 1, sizeof(*pl->xcat));
		for (i = 0; i < xs->n; i++)
			pl->xcat[i] = xstrdup(strpool_get(xs->sp, xs->order[i]));
		for (i = 0; i < xs->n; i++)
			pl->x[i] = (double)i;
	}
	pl->ns = gs->n;
	pl->s = xcalloc(gs->n + 1, sizeof(*pl->s));
	for (i = 0; i < gs->n; i++) {
		pl->s[i].label = xstrdup(strpool_get(gs->sp, gs->order[i]));
		pl->s[i].y = xcalloc(xs->n + 1, sizeof(double));
	}
	pl->xlabel = xstrdup(per);
	pl->ylabel =
		unit_label(p, o->of, view_agg_name(o->agg), o->kind == VIEW_FLOW && o->accumulate);
}

static int build_grouped(const struct profile *p, const struct view_opts *o, const char *per,
			 const char *by, struct vfigure *f)
{
	struct keyset xs = {strpool_new(), 0, NULL, NULL, NULL, false};
	struct keyset gs = {strpool_new(), 0, NULL, NULL, NULL, false};
	struct cellval *cv = NULL;
	size_t n;
	int ret = check_keys(p, o, per, by);

	if (ret < 0)
		goto out;
	n = collect_cells(p, o, per, by, &xs, &gs, &cv);
	keyset_order(&xs);
	keyset_order(&gs);
	if (!n) {
		ret = err_set(ERR_NOTFOUND, "no resource has both '%s' and '%s'", o->of, per);
		goto out;
	}
	if ((double)xs.n * (double)gs.n > VIEW_MAX_CELLS) {
		ret = err_set(ERR_INVALID,
			      "%zu values of '%s' times %zu series is more than a view can draw; "
			      "narrow it with --filter-by, or choose another --per or --by",
			      xs.n, per, gs.n);
		goto out;
	}
	if (o->kind == VIEW_FLOW && !xs.numeric) {
		ret = err_set(ERR_INVALID, "flow needs a numeric --per; '%s' is not", per);
		goto out;
	}
	f->kind = o->kind;
	f->stacked = o->stacked;
	f->n = 1;
	f->plots = xcalloc(1, sizeof(*f->plots));
	plot_from_keys(p, o, per, &xs, &gs, &f->plots[0]);
	fill_series(o, cv, n, &xs, &gs, &f->plots[0]);
out:
	free(cv);
	keyset_release(&xs);
	keyset_release(&gs);
	return ret;
}

static void figure_title(const struct profile *p, const struct view_opts *o, const char *what,
			 struct vfigure *f)
{
	struct buf b = BUF_INIT;

	if (o->title)
		buf_adds(&b, o->title);
	else
		buf_addf(&b, "%s%s%s", what, p->cmd && *p->cmd ? " of " : "", p->cmd ? p->cmd : "");
	f->title = buf_detach(&b, NULL);
}

int view_build_bars(const struct profile *p, const struct view_opts *o, struct vfigure *f)
{
	const char *per = o->per ? o->per : "uid";
	int ret = build_grouped(p, o, per, o->by, f);

	if (ret < 0)
		return ret;
	figure_title(p, o, "bars", f);
	return 0;
}

/* Running sums along x; a series with no value at some x carries on. */
static void accumulate(struct vplot *pl)
{
	size_t s, i;

	for (s = 0; s < pl->ns; s++) {
		double run = 0;

		for (i = 0; i < pl->nx; i++) {
			if (!isnan(pl->s[s].y[i]))
				run += pl->s[s].y[i];
			pl->s[s].y[i] = run;
		}
	}
}

int view_build_flow(const struct profile *p, const struct view_opts *o, struct vfigure *f)
{
	const char *per = o->per ? o->per : "structure-unit-size";
	const char *by = o->by ? o->by : "uid";
	int ret = build_grouped(p, o, per, by, f);

	if (ret < 0)
		return ret;
	if (o->accumulate)
		accumulate(&f->plots[0]);
	figure_title(p, o, "flow", f);
	return 0;
}

static void vplot_release(struct vplot *pl)
{
	size_t i;

	free(pl->title);
	free(pl->xlabel);
	free(pl->ylabel);
	for (i = 0; pl->xcat && i < pl->nx; i++)
		free(pl->xcat[i]);
	free(pl->xcat);
	free(pl->x);
	for (i = 0; i < pl->ns; i++) {
		free(pl->s[i].label);
		free(pl->s[i].y);
	}
	free(pl->s);
	free(pl->px);
	free(pl->py);
	for (i = 0; i < pl->ncurves; i++) {
		free(pl->curves[i].label);
		free(pl->curves[i].x);
		free(pl->curves[i].y);
	}
	free(pl->curves);
}

void vfigure_release(struct vfigure *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		vplot_release(&f->plots[i]);
	free(f->plots);
	free(f->title);
	memset(f, 0, sizeof(*f));
}
