/*
 * `veles diff BASE TARGET report`: one HTML file, nothing fetched when it
 * is opened. Its tables sort on a click and filter as one types; the
 * flame graph is the SVG `veles diff ... flamegraph` draws, inline, with
 * its own script (zoom, search, tooltips).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "analyze/pprecord.h"
#include "analyze/samples.h"
#include "analyze/stats.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "view/diff_report.h"
#include "view/flamegraph.h"

struct row {
	const char *name;
	double v[2];   /* aggregated; NaN where the location is missing */
	double sum[2]; /* every value added */
	size_t n[2];   /* how many values */
	double rel;    /* v[1] / v[0] - 1; NaN when not defined */
};

static double aggregate(const struct sample_group *g, enum report_agg a)
{
	double v = 0;

	switch (a) {
	case REPORT_SUM:
		for (size_t i = 0; i < g->n; i++)
			v += g->v[i];
		return v;
	case REPORT_MEAN:
		return stats_mean(g->v, g->n);
	case REPORT_MIN:
	case REPORT_MAX:
		v = g->v[0];
		for (size_t i = 1; i < g->n; i++)
			v = a == REPORT_MIN ? fmin(v, g->v[i]) : fmax(v, g->v[i]);
		return v;
	case REPORT_COUNT:
		return (double)g->n;
	default:
		return stats_median(g->v, g->n);
	}
}

static double group_sum(const struct sample_group *g)
{
	double v = 0;

	for (size_t i = 0; g && i < g->n; i++)
		v += g->v[i];
	return v;
}

/* Largest change either way first (halving as big as doubling), then new
 * and gone locations, then by name. */
static int cmp_rows(const void *x, const void *y)
{
	const struct row *a = x, *b = y;
	double ka = -fabs(log1p(a->rel)), kb = -fabs(log1p(b->rel));

	if (isnan(ka) != isnan(kb))
		return isnan(ka) ? 1 : -1;
	if (!isnan(ka) && ka != kb)
		return ka < kb ? -1 : 1;
	return strcmp(a->name, b->name);
}

static size_t join(const struct sample_set s[2], enum report_agg agg, struct row *rows)
{
	const struct sample_group *g[2];
	const char *loc;
	size_t i = 0, j = 0, n = 0;

	while ((loc = samples_next_pair(&s[0], &s[1], &i, &j, &g[0], &g[1]))) {
		struct row *r = &rows[n++];

		memset(r, 0, sizeof(*r));
		r->name = loc;
		for (int k = 0; k < 2; k++) {
			r->v[k] = g[k] ? aggregate(g[k], agg) : NAN;
			r->sum[k] = group_sum(g[k]);
			r->n[k] = g[k] ? g[k]->n : 0;
		}
		r->rel = r->v[0] != 0 && !isnan(r->v[0]) && !isnan(r->v[1]) ? r->v[1] / r->v[0] - 1
									    : NAN;
	}
	return n;
}

/* ---- HTML pieces ---- */

static void text(struct buf *b, const char *s)
{
	buf_add_xml(b, s ? s : "", SIZE_MAX);
}

static void num_cell(struct buf *b, double v, const char *none)
{
	if (isnan(v)) {
		buf_addf(b, "<td class=\"n\" data-num=\"NaN\">%s</td>", none);
		return;
	}
	buf_addf(b, "<td class=\"n\" data-num=\"%.17g\">%.6g</td>", v, v);
}

/* The change, coloured by its size: red grew, blue shrank. */
static void change_cell(struct buf *b, const struct row *r)
{
	const char *none = isnan(r->v[0]) ? "new" : isnan(r->v[1]) ? "gone" : "-";
	double a = isnan(r->rel) ? 0 : fmin(1, fabs(log1p(r->rel)) / log(2));

	if (isnan(r->rel)) {
		buf_addf(b, "<td class=\"n %s\" data-num=\"NaN\">%s</td>",
			 isnan(r->v[0])	  ? "grew"
			 : isnan(r->v[1]) ? "shrank"
					  : "",
			 none);
		return;
	}
	buf_addf(b,
		 "<td class=\"n\" data-num=\"%.17g\" style=\"background:rgba(%s,%.2f)\">%+.1f%%"
		 "</td>",
		 r->rel, r->rel > 0 ? "214,39,40" : "31,119,180", 0.6 * a, 100 * r->rel);
}

static const char *unit_of(const struct profile *p)
{
	const char *u = p->type ? profile_units(p, p->type) : NULL;

	return u ? u : p->nunits ? p->units[0].value : "";
}

/* The postprocessors' names, "a, b", or "none". */
static void postprocessors(struct buf *b, const struct profile *p)
{
	struct pp_records r;

	if (pp_records_read(p->postprocessors, &r) < 0)
		memset(&r, 0, sizeof(r));
	for (size_t i = 0; i < r.n; i++) {
		if (i)
			buf_adds(b, ", ");
		text(b, r.v[i].name);
	}
	if (!r.n)
		buf_adds(b, "none");
	pp_records_free(&r);
}

/* A member of Perun's "machine" object (host, release, cpu.total, ...). */
static void machine(struct buf *b, const struct profile *p, const char *a, const char *c)
{
	const char *path[] = {a, c, NULL};
	yajl_val root = NULL, v = NULL;

	for (size_t i = 0; i < p->nextra && !root; i++)
		if (strcmp(p->extra[i].key, "machine") == 0)
			root = yajl_tree_parse(p->extra[i].value, NULL, 0);
	if (root)
		v = yajl_tree_get(root, path, yajl_t_any);
	if (v && YAJL_IS_STRING(v))
		text(b, YAJL_GET_STRING(v));
	else if (v && YAJL_IS_NUMBER(v))
		text(b, YAJL_GET_NUMBER(v));
	else
		buf_adds(b, "?");
	yajl_tree_free(root);
}

static bool has_machine(const struct profile *p)
{
	for (size_t i = 0; i < p->nextra; i++)
		if (strcmp(p->extra[i].key, "machine") == 0)
			return true;
	return false;
}

enum field { F_ORIGIN, F_COMMAND, F_COLLECTOR, F_TYPE, F_POST, F_NRES, F_TOTAL, NFIELDS };

static void field(struct buf *b, const struct profile *p, enum field f, double total)
{
	switch (f) {
	case F_ORIGIN:
		text(b, p->origin ? p->origin : "?");
		break;
	case F_COMMAND:
		text(b, p->cmd);
		if (p->args && *p->args) {
			buf_addc(b, ' ');
			text(b, p->args);
		}
		if (p->workload && *p->workload && (!p->args || strcmp(p->args, p->workload))) {
			buf_addc(b, ' ');
			text(b, p->workload);
		}
		break;
	case F_COLLECTOR:
		text(b, p->collector ? p->collector : "?");
		if (p->collector_params && strcmp(p->collector_params, "{}") != 0) {
			buf_adds(b, " <span class=\"dim\">");
			text(b, p->collector_params);
			buf_adds(b, "</span>");
		}
		break;
	case F_TYPE:
		text(b, p->type);
		if (*unit_of(p)) {
			buf_adds(b, " [");
			text(b, unit_of(p));
			buf_adds(b, "]");
		}
		break;
	case F_POST:
		postprocessors(b, p);
		break;
	case F_NRES:
		buf_addf(b, "%zu", profile_nres(p));
		break;
	default:
		buf_addf(b, "%.6g", total);
	}
}

static void header_table(struct buf *b, const struct profile *p[2], const struct report_opts *o,
			 const double total[2])
{
	static const char *const names[NFIELDS] = {
		"origin", "command", "collector", "type", "postprocessors", "resources", "total"};
	static const char *const help[NFIELDS] = {
		"The version the profile measured.",
		"The command, its arguments and workload.",
		"The collector and its parameters.",
		"The kind of profile and the unit of its amounts.",
		"What transformed the profile after collection.",
		"How many measurements it holds.",
		"The sum of the compared value over every resource."};

	buf_adds(b, "<h2>Profiles</h2>\n<table class=\"head\"><thead><tr><th></th><th>");
	text(b, o->names[0]);
	buf_adds(b, " <span class=\"dim\">(baseline)</span></th><th>");
	text(b, o->names[1]);
	buf_adds(b, " <span class=\"dim\">(target)</span></th></tr></thead><tbody>\n");
	for (int f = 0; f < NFIELDS; f++) {
		buf_addf(b, "<tr><td class=\"key\" title=\"%s\">%s</td>", help[f], names[f]);
		for (int k = 0; k < 2; k++) {
			buf_adds(b, "<td>");
			field(b, p[k], (enum field)f, total[k]);
			buf_adds(b, "</td>");
		}
		buf_adds(b, "</tr>\n");
	}
	if (has_machine(p[0]) || has_machine(p[1])) {
		static const char *const m[][3] = {{"host", "host", NULL},
						   {"kernel", "release", NULL},
						   {"cpu (total)", "cpu", "total"},
						   {"memory (total)", "memory", "total_ram"}};

		for (size_t i = 0; i < ARRAY_SIZE(m); i++) {
			buf_addf(b, "<tr><td class=\"key\">%s</td>", m[i][0]);
			for (int k = 0; k < 2; k++) {
				buf_adds(b, "<td>");
				machine(b, p[k], m[i][1], m[i][2]);
				buf_adds(b, "</td>");
			}
			buf_adds(b, "</tr>\n");
		}
	}
	buf_adds(b, "</tbody></table>\n");
}

static const char *const agg_names[] = {"sum", "mean", "median", "min", "max", "count"};

static void filter_box(struct buf *b, const char *table, size_t n)
{
	buf_addf(b, "<input class=\"filter\" data-table=\"%s\" placeholder=\"filter %zu rows\">\n",
		 table, n);
}

static void changes_table(struct buf *b, const struct row *rows, size_t n,
			  const struct report_opts *o, const char *of)
{
	buf_addf(b,
		 "<h2>Changes per location</h2>\n<p class=\"help\">The %s of each location's "
		 "<code>",
		 agg_names[o->agg]);
	text(b, of);
	buf_adds(b, "</code> in either profile, largest change first (halving counts as much "
		    "as doubling). Click a column to sort by it.</p>\n");
	filter_box(b, "changes", n);
	buf_adds(b, "<table class=\"sortable\" id=\"changes\"><thead><tr><th>location</th>"
		    "<th>baseline</th><th>target</th><th>change</th><th>n baseline</th>"
		    "<th>n target</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < n; i++) {
		buf_adds(b, "<tr><td>");
		text(b, rows[i].name);
		buf_adds(b, "</td>");
		num_cell(b, rows[i].v[0], "-");
		num_cell(b, rows[i].v[1], "-");
		change_cell(b, &rows[i]);
		buf_addf(b, "<td class=\"n\" data-num=\"%zu\">%zu</td>", rows[i].n[0],
			 rows[i].n[0]);
		buf_addf(b, "<td class=\"n\" data-num=\"%zu\">%zu</td></tr>\n", rows[i].n[1],
			 rows[i].n[1]);
	}
	buf_adds(b, "</tbody></table>\n");
}

/* Perun's report tables: each location's sum and its share of the total. */
static void share_table(struct buf *b, const struct row *rows, size_t n, int k, double total,
			const char *unit, const char *name)
{
	const char *id = k ? "target" : "baseline";
	size_t shown = 0;

	for (size_t i = 0; i < n; i++)
		shown += rows[i].n[k] > 0;
	buf_addf(b, "<div class=\"half\"><h3>%s: ", k ? "Target" : "Baseline");
	text(b, name);
	buf_adds(b, "</h3>\n");
	filter_box(b, id, shown);
	buf_addf(b,
		 "<table class=\"sortable\" id=\"%s\" data-sort=\"1\"><thead><tr><th>location</th>"
		 "<th>sum",
		 id);
	if (*unit) {
		buf_adds(b, " [");
		text(b, unit);
		buf_adds(b, "]");
	}
	buf_adds(b, "</th><th>[%]</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < n; i++) {
		if (!rows[i].n[k])
			continue;
		buf_adds(b, "<tr><td>");
		text(b, rows[i].name);
		buf_adds(b, "</td>");
		num_cell(b, rows[i].sum[k], "-");
		num_cell(b, total != 0 ? 100 * rows[i].sum[k] / total : NAN, "-");
		buf_adds(b, "</tr>\n");
	}
	buf_adds(b, "</tbody></table></div>\n");
}

static void flame_section(struct buf *b, const struct profile *p[2], const struct report_opts *o)
{
	struct flame_opts fo = {.of = o->of, .title = "differential flame graph (widths: target)"};
	struct buf svg = BUF_INIT;

	buf_adds(b, "<h2>Differential flame graph</h2>\n");
	if (flamegraph_svg(p[0], p[1], &fo, &svg) < 0) {
		buf_adds(b,
			 "<p class=\"help\">Neither profile has call stacks (a <code>trace</code>"
			 " per resource, or a trace profile's calls) to draw.</p>\n");
		err_clear();
	} else {
		buf_adds(b, "<p class=\"help\">Each frame as wide as its inclusive value in the "
			    "target, red where it grew and blue where it shrank, deeper the more "
			    "it changed. Hover for both values and the change; click a frame to "
			    "zoom into it (a dimmed caller or <i>back</i> zooms out, Escape "
			    "resets); the box searches frames by name (text, or "
			    "<code>/regex/</code>) and sums their share.</p>\n"
			    "<div class=\"flame\">");
		buf_add(b, svg.data, svg.len);
		buf_adds(b, "</div>\n");
	}
	buf_release(&svg);
}

static const char style[] =
	"body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}"
	"h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}h3{font-size:1em}"
	"table{border-collapse:collapse;font-family:monospace;margin-bottom:1em}"
	"th,td{padding:3px 10px;border-bottom:1px solid #e3e7ee;text-align:left;"
	"vertical-align:top}td.n{text-align:right}th{background:#dde4ee}"
	"table.sortable th{cursor:pointer;user-select:none}"
	"th.asc:after{content:' \\25B2'}th.desc:after{content:' \\25BC'}"
	"td.key{font-weight:bold}.dim{color:#777}.help{color:#555}"
	"td.grew{color:#b2182b}td.shrank{color:#2166ac}"
	".filter{margin:0 0 .5em;padding:4px;width:20em}"
	".half{display:inline-block;vertical-align:top;width:48%;margin-right:1%}"
	".flame svg{max-width:100%;height:auto}";

/* Sorting (numbers by data-num) and filtering, for every table. */
static const char script[] =
	"(function(){function key(r,c){var d=r.cells[c];return d.dataset.num!==undefined?"
	"parseFloat(d.dataset.num):d.textContent;}"
	"document.querySelectorAll('table.sortable').forEach(function(t){"
	"var b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows),dir={};"
	"function sort(c,d){rows.sort(function(x,y){var a=key(x,c),z=key(y,c);"
	"if(a!==a)return 1;if(z!==z)return -1;return (a<z?-1:a>z?1:0)*d;});"
	"rows.forEach(function(r){b.appendChild(r);});"
	"Array.prototype.forEach.call(t.tHead.rows[0].cells,function(h,i){"
	"h.className=i===c?(d>0?'asc':'desc'):'';});}"
	"Array.prototype.forEach.call(t.tHead.rows[0].cells,function(th,c){"
	"th.addEventListener('click',function(){dir[c]=-(dir[c]||1);sort(c,dir[c]);});});"
	"if(t.dataset.sort){dir[+t.dataset.sort]=-1;sort(+t.dataset.sort,-1);}"
	"t.velesRows=rows;});"
	"document.querySelectorAll('input.filter').forEach(function(f){"
	"var t=document.getElementById(f.dataset.table);f.addEventListener('input',function(){"
	"var q=f.value.toLowerCase();t.velesRows.forEach(function(r){"
	"r.style.display=r.cells[0].textContent.toLowerCase().indexOf(q)<0?'none':'';});});"
	"});})();";

int diff_report_html(const struct profile *base, const struct profile *target,
		     const struct report_opts *o, struct buf *out)
{
	const struct profile *p[2] = {base, target};
	const char *of = o->of ? o->of : "amount";
	struct sample_set s[2];
	double total[2] = {0, 0};
	struct row *rows;
	size_t n, common = 0, fresh = 0, gone = 0;

	for (int k = 0; k < 2; k++)
		samples_build(p[k], o->of, &s[k]);
	if (s[0].n == 0 && s[1].n == 0) {
		samples_free(&s[0]);
		samples_free(&s[1]);
		return err_set(ERR_INVALID, "no resource of either profile has a numeric '%s'", of);
	}
	rows = xcalloc(s[0].n + s[1].n + 1, sizeof(*rows));
	n = join(s, o->agg, rows);
	for (size_t i = 0; i < n; i++) {
		total[0] += rows[i].sum[0];
		total[1] += rows[i].sum[1];
		common += rows[i].n[0] && rows[i].n[1];
		fresh += !rows[i].n[0];
		gone += !rows[i].n[1];
	}
	qsort(rows, n, sizeof(*rows), cmp_rows);

	buf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		      "<meta name=\"viewport\" content=\"width=device-width\"><title>");
	text(out, o->names[0]);
	buf_adds(out, " vs ");
	text(out, o->names[1]);
	buf_addf(out,
		 "</title><style>%s</style></head><body>\n<h1>Difference of profiles</h1>\n"
		 "<p><b>",
		 style);
	text(out, o->names[0]);
	buf_adds(out, "</b> (baseline) → <b>");
	text(out, o->names[1]);
	buf_addf(out,
		 "</b> (target): total <code>%s</code> %.6g → %.6g (%+.1f%%); %zu locations in "
		 "both, %zu new, %zu gone.</p>\n",
		 of, total[0], total[1], total[0] != 0 ? 100 * (total[1] / total[0] - 1) : 0.0,
		 common, fresh, gone);
	header_table(out, p, o, total);
	changes_table(out, rows, n, o, of);
	buf_adds(out, "<h2>Locations by their share of the total</h2>\n<p class=\"help\">Each "
		      "location's sum and its share of its profile's total, as Perun's report "
		      "lists them.</p>\n");
	share_table(out, rows, n, 0, total[0], unit_of(base), o->names[0]);
	share_table(out, rows, n, 1, total[1], unit_of(target), o->names[1]);
	flame_section(out, p, o);
	buf_addf(out, "<script>%s</script>\n</body></html>\n", script);
	free(rows);
	samples_free(&s[0]);
	samples_free(&s[1]);
	return 0;
}
