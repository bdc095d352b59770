/*
 * The table and summary views (docs/cli/show.md), rendered into a buffer:
 * the table gives a row per resource, the summary the header and per
 * resource type the statistics of the amounts.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/envinfo.h"
#include "analyze/profile_config.h"
#include "analyze/stats.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "view/view.h"
#include "view/views.h"

/* A cell as text: numbers shortest-first, strings as they are. */
static void cell(const struct profile *p, const struct column *c, size_t row, struct buf *out)
{
	const char *t;

	buf_reset(out);
	if (!c || !col_has(c, row))
		return;
	if (c->kind == COL_I64)
		buf_addf(out, "%lld", (long long)col_i64(c, row));
	else if (c->kind == COL_F64)
		buf_addf(out, "%.6g", c->v.f64[row]);
	else if ((t = col_text(p, c, row)))
		buf_adds(out, t);
}

struct tcol {
	const char *name;
	const struct column *col;
	bool persistent; /* in p->types, indexed by the resource's type */
	int width;
};

static size_t table_columns(const struct profile *p, struct tcol *cols, size_t max)
{
	/* bound and class: what a bounds profile measures, with no amount. */
	static const char *const persistent[] = {"type", "subtype", "bound", "class"};
	size_t n = 0, i;

	cols[n++] = (struct tcol){"uid", NULL, true, 3};
	for (i = 0; i < ARRAY_SIZE(persistent) && n < max; i++) {
		const struct column *c = table_col(&p->types, persistent[i]);

		if (c)
			cols[n++] =
				(struct tcol){persistent[i], c, true, (int)strlen(persistent[i])};
	}
	for (i = 0; i < p->res.ncols && n < max; i++)
		cols[n++] = (struct tcol){p->res.cols[i].name, &p->res.cols[i], false,
					  (int)strlen(p->res.cols[i].name)};
	return n;
}

static void table_cell(const struct profile *p, const struct tcol *t, size_t row, struct buf *out,
		       struct buf *scratch)
{
	if (!t->col && strcmp(t->name, "uid") == 0) {
		buf_reset(out);
		buf_adds(out, profile_uid(p, row, scratch));
	} else {
		cell(p, t->col, t->persistent ? p->res_type[row] : row, out);
	}
}

void view_resource_table(const struct profile *p, size_t limit, bool json, struct buf *out)
{
	struct tcol cols[64];
	struct buf v = BUF_INIT, scratch = BUF_INIT;
	size_t n = table_columns(p, cols, ARRAY_SIZE(cols));
	size_t rows = profile_nres(p), i, j;

	if (limit && limit < rows)
		rows = limit;
	if (json) {
		buf_adds(out, "[");
		for (i = 0; i < rows; i++) {
			buf_adds(out, i ? ",\n{" : "\n{");
			for (j = 0; j < n; j++) {
				const struct column *c = cols[j].col;

				table_cell(p, &cols[j], i, &v, &scratch);
				buf_addf(out, "%s\"%s\":", j ? "," : "", cols[j].name);
				if (c && (c->kind == COL_I64 || c->kind == COL_F64) && v.len)
					buf_add(out, v.data, v.len);
				else if (c && c->kind == COL_JSON && v.len)
					buf_add(out, v.data, v.len);
				else if (v.len || !c)
					buf_add_json_str(out, buf_str(&v), v.len);
				else
					buf_adds(out, "null");
			}
			buf_adds(out, "}");
		}
		buf_adds(out, "\n]\n");
		goto done;
	}
	/* Widths from the first rows only: a million-row table should start
	 * printing at once. */
	for (i = 0; i < rows && i < 1000; i++)
		for (j = 0; j < n; j++) {
			table_cell(p, &cols[j], i, &v, &scratch);
			if ((int)v.len > cols[j].width)
				cols[j].width = v.len > 60 ? 60 : (int)v.len;
		}
	for (j = 0; j < n; j++)
		buf_addf(out, "%-*s%s", cols[j].width, cols[j].name, j + 1 < n ? "  " : "\n");
	for (i = 0; i < rows; i++)
		for (j = 0; j < n; j++) {
			bool num = cols[j].col &&
				   (cols[j].col->kind == COL_I64 || cols[j].col->kind == COL_F64);

			table_cell(p, &cols[j], i, &v, &scratch);
			buf_addf(out, num ? "%*s%s" : "%-*s%s", cols[j].width, buf_str(&v),
				 j + 1 < n ? "  " : "\n");
		}
done:
	buf_release(&v);
	buf_release(&scratch);
}

/* One line of the summary: the amounts of one resource type. */
struct group {
	uint32_t type;
	size_t first_row; /* its first resource, SIZE_MAX when it has none */
	struct stats st;
};

/* Buckets the amounts by resource type (counting sort) and computes each
 * bucket's statistics; returns the groups in type order. */
static struct group *group_amounts(const struct profile *p, size_t *ngroups)
{
	size_t ntypes = p->types.nrows, nres = profile_nres(p), i, g = 0;
	size_t *start = xcalloc(ntypes + 1, sizeof(*start));
	size_t *fill = xcalloc(ntypes + 1, sizeof(*fill));
	double *vals = xmalloc((nres ? nres : 1) * sizeof(*vals));
	struct group *groups = xcalloc(ntypes ? ntypes : 1, sizeof(*groups));

	for (i = 0; i < nres; i++)
		if (!isnan(profile_amount(p, i)))
			start[p->res_type[i] + 1]++;
	for (i = 0; i < ntypes; i++)
		start[i + 1] += start[i];
	memcpy(fill, start, (ntypes + 1) * sizeof(*fill));
	for (i = 0; i < nres; i++) {
		double a = profile_amount(p, i);

		if (!isnan(a))
			vals[fill[p->res_type[i]]++] = a;
	}
	for (i = 0; i < ntypes; i++)
		groups[i].first_row = SIZE_MAX;
	for (i = nres; i-- > 0;)
		groups[p->res_type[i]].first_row = i;
	for (i = 0; i < ntypes; i++) {
		groups[g].type = (uint32_t)i;
		stats_compute(vals + start[i], start[i + 1] - start[i], &groups[g].st);
		g++;
	}
	free(start);
	free(fill);
	free(vals);
	*ngroups = g;
	return groups;
}

/* The unit of a type's amounts: units[type(subtype)], units[type], or the
 * only unit there is. */
static const char *unit_of(const struct profile *p, const char *type, const char *subtype,
			   struct buf *scratch)
{
	const char *u;

	buf_reset(scratch);
	buf_addf(scratch, "%s(%s)", type ? type : "", subtype ? subtype : "");
	if ((u = profile_units(p, buf_str(scratch))))
		return u;
	if (type && (u = profile_units(p, type)))
		return u;
	return p->nunits == 1 ? p->units[0].value : "";
}

static const char *type_text(const struct profile *p, const char *col, uint32_t type)
{
	const struct column *c = table_col(&p->types, col);
	const char *t = c ? col_text(p, c, type) : NULL;

	return t ? t : "";
}

/* The uid of a group, rendered as its resources' are. */
static const char *type_uid(const struct profile *p, const struct group *g, struct buf *scratch)
{
	if (g->first_row != SIZE_MAX)
		return profile_uid(p, g->first_row, scratch);
	return type_text(p, "uid", g->type);
}

/* The postprocessors by name ("regression-analysis, normalizer"), the
 * whole records with --verbose (or when they are not a list of records). */
static void postprocessors(const struct profile *p, bool verbose, struct buf *out)
{
	size_t n;
	char **names = profile_config_postprocessors(p, &n);
	const char *raw = p->postprocessors;
	bool none = !raw || strcmp(raw, "[]") == 0 || strcmp(raw, "null") == 0;

	buf_adds(out, "Postprocessors: ");
	if (verbose || (!n && !none))
		buf_adds(out, raw ? raw : "[]");
	else if (!n)
		buf_adds(out, "(none)");
	for (size_t i = 0; !verbose && i < n; i++)
		buf_addf(out, "%s%s", i ? ", " : "", names[i]);
	buf_addc(out, '\n');
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

void view_summary_header(const struct profile *p, const char *name, size_t ngroups, bool verbose,
			 struct buf *out)
{
	struct buf models = BUF_INIT;
	struct env_info e;
	size_t nmodels = 0, i;

	buf_addf(out, "Profile:        %s\n", name);
	buf_addf(out, "Type:           %s\n", p->type);
	buf_addf(out, "Command:        %s\n", p->cmd ? p->cmd : "");
	if (p->args && *p->args)
		buf_addf(out, "Arguments:      %s\n", p->args);
	if (p->workload && *p->workload)
		buf_addf(out, "Workload:       %s\n", p->workload);
	if (p->collector)
		buf_addf(out, "Collector:      %s %s\n", p->collector,
			 p->collector_params ? p->collector_params : "");
	buf_addf(out, "Origin:         %s\n", p->origin ? p->origin : "(none)");
	env_info_get(p, &e); /* where the profile was measured */
	env_info_describe(&e, out);
	env_info_release(&e);
	buf_adds(out, "Units:          ");
	for (i = 0; i < p->nunits; i++)
		buf_addf(out, "%s%s: %s", i ? ", " : "", p->units[i].key, p->units[i].value);
	buf_addf(out, "%s\n", p->nunits ? "" : "(none)");
	buf_addf(out, "Resources:      %zu in %zu type%s\n", profile_nres(p), ngroups,
		 ngroups == 1 ? "" : "s");
	postprocessors(p, verbose, out);
	if (verbose || view_models_table(p->models, &models, &nmodels) < 0)
		buf_addf(out, "Models:         %s\n\n", p->models ? p->models : "[]");
	else
		buf_addf(out, "Models:         %zu\n\n", nmodels);
	err_clear();
	buf_release(&models);
}

static void summary_text(const struct profile *p, const char *name, const struct group *g, size_t n,
			 bool verbose, struct buf *out)
{
	struct buf uid = BUF_INIT, scratch = BUF_INIT;
	int w = 3;
	size_t i;

	view_summary_header(p, name, n, verbose, out);
	for (i = 0; i < n; i++) {
		int len = (int)strlen(type_uid(p, &g[i], &uid));

		if (len > w)
			w = len > 50 ? 50 : len;
	}
	buf_addf(out, "%-*s  %-12s %8s %12s %12s %12s %12s %12s  %s\n", w, "uid", "subtype",
		 "count", "mean", "sd", "median", "min", "max", "unit");
	for (i = 0; i < n; i++) {
		const char *sub = type_text(p, "subtype", g[i].type);
		const struct stats *s = &g[i].st;

		buf_addf(out, "%-*s  %-12s %8zu", w, type_uid(p, &g[i], &uid), sub, s->n);
		if (s->n)
			buf_addf(out, " %12.6g %12.6g %12.6g %12.6g %12.6g", s->mean, s->stddev,
				 s->median, s->min, s->max);
		else
			buf_addf(out, " %12s %12s %12s %12s %12s", "-", "-", "-", "-", "-");
		buf_addf(out, "  %s\n", unit_of(p, type_text(p, "type", g[i].type), sub, &scratch));
	}
	/* The models as a table after the summary's (unless verbose gave them). */
	buf_reset(&scratch);
	if (!verbose && view_models_table(p->models, &scratch, &i) == 0 && i)
		buf_addf(out, "\nModels:\n%s", buf_str(&scratch));
	err_clear();
	buf_release(&uid);
	buf_release(&scratch);
}

/* A member whose value is the profile's own JSON (postprocessors, models). */
static void json_raw(struct buf *b, const char *key, const char *json)
{
	buf_addf(b, ",\"%s\":%s", key, json && *json ? json : "null");
}

static void json_field(struct buf *b, const char *key, const char *value, bool first)
{
	buf_addf(b, "%s\"%s\":", first ? "" : ",", key);
	if (value)
		buf_add_json_str(b, value, strlen(value));
	else
		buf_adds(b, "null");
}

static void json_group(const struct profile *p, const struct group *g, bool first, struct buf *b,
		       struct buf *scratch)
{
	const struct stats *s = &g->st;
	const char *sub = type_text(p, "subtype", g->type);

	buf_adds(b, first ? "{" : ",{");
	json_field(b, "uid", type_uid(p, g, scratch), true);
	json_field(b, "subtype", sub, false);
	json_field(b, "unit", unit_of(p, type_text(p, "type", g->type), sub, scratch), false);
	buf_addf(b, ",\"count\":%zu", s->n);
	if (s->n)
		buf_addf(b,
			 ",\"mean\":%.17g,\"stddev\":%.17g,\"median\":%.17g,\"min\":%.17g,"
			 "\"max\":%.17g",
			 s->mean, s->stddev, s->median, s->min, s->max);
	buf_addc(b, '}');
}

static void summary_json(const struct profile *p, const char *name, const struct group *g, size_t n,
			 struct buf *b)
{
	struct buf scratch = BUF_INIT;
	size_t i;

	buf_addc(b, '{');
	json_field(b, "name", name, true);
	json_field(b, "type", p->type, false);
	json_field(b, "cmd", p->cmd, false);
	json_field(b, "args", p->args, false);
	json_field(b, "workload", p->workload, false);
	json_field(b, "collector", p->collector, false);
	json_field(b, "origin", p->origin, false);
	json_raw(b, "collector_params", p->collector_params);
	json_raw(b, "postprocessors", p->postprocessors);
	json_raw(b, "models", p->models);
	for (i = 0; i < p->nheader_extra; i++)
		if (strcmp(p->header_extra[i].key, "environment") == 0)
			buf_addf(b, ",\"environment\":%s", p->header_extra[i].value);
	buf_addf(b, ",\"resources\":%zu,\"groups\":[", profile_nres(p));
	for (i = 0; i < n; i++)
		json_group(p, &g[i], i == 0, b, &scratch);
	buf_adds(b, "]}\n");
	buf_release(&scratch);
}

void view_summary(const struct profile *p, const char *name, bool verbose, bool json, size_t limit,
		  struct buf *out)
{
	size_t n;
	struct group *g;

	if (view_is_trace_aggregate(p)) {
		view_trace_summary(p, name, json, out);
		return;
	}
	/* A bounds profile has bounds, not amounts to take statistics of. */
	if (!json && p->type && strcmp(p->type, "bound") == 0 && table_col(&p->types, "bound")) {
		view_summary_header(p, name, p->types.nrows, verbose, out);
		view_resource_table(p, limit, false, out);
		return;
	}
	g = group_amounts(p, &n);
	if (json)
		summary_json(p, name, g, n, out);
	else
		summary_text(p, name, g, n, verbose, out);
	free(g);
}
