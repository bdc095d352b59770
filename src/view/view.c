/* view_render(): the data step, then the renderer the target asks for. */
#include <stdio.h>
#include <string.h>

#include "util/buf.h"
#include "util/common.h"
#include "view/flamegraph.h"
#include "view/view_priv.h"

static const char *const agg_names[] = {"sum", "mean", "median", "min", "max", "count"};
static const char *const fmt_names[] = {"plain", "markdown", "csv", "json"};

const char *const view_palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
				    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
const size_t view_palette_len = ARRAY_SIZE(view_palette);

void view_opts_init(struct view_opts *o, enum view_kind kind)
{
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->of = "amount";
	o->agg = AGG_SUM;
	o->accumulate = kind == VIEW_FLOW;
	o->width = 80;
}

int view_parse_agg(const char *s, enum view_agg *out)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(agg_names); i++)
		if (strcmp(s, agg_names[i]) == 0) {
			*out = (enum view_agg)i;
			return 0;
		}
	return err_set(ERR_INVALID,
		       "unknown aggregation '%s': use sum, mean, median, min, max or count", s);
}

int view_parse_table_fmt(const char *s, enum table_fmt *out)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fmt_names); i++)
		if (strcmp(s, fmt_names[i]) == 0 || (i == 0 && strcmp(s, "text") == 0)) {
			*out = (enum table_fmt)i;
			return 0;
		}
	return err_set(ERR_INVALID, "unknown format '%s': use plain, markdown, csv or json", s);
}

const char *view_agg_name(enum view_agg a)
{
	return agg_names[a];
}

/* The flame graph is SVG, whose own script zooms, searches and shows
 * tooltips; a page holds it inline (flamegraph_page()). */
static int flamegraph_render(const struct profile *p, const struct view_opts *o, enum view_target t,
			     struct buf *out)
{
	struct flame_opts fo = {.of = o->of, .title = o->title, .count = o->agg == AGG_COUNT};

	if (o->agg != AGG_SUM && o->agg != AGG_COUNT)
		return err_set(ERR_INVALID, "flamegraph adds up its values: -a sum or count");
	if (t == TARGET_TERM)
		return err_set(ERR_INVALID, "flamegraph draws a picture: -o FILE.svg or FILE.html");
	if (t == TARGET_HTML)
		return flamegraph_page(NULL, p, &fo, out);
	return flamegraph_svg(NULL, p, &fo, out);
}

int view_render(const struct profile *p, const struct view_opts *o, enum view_target t,
		struct buf *out)
{
	struct vfigure f = {0};
	int ret;

	if (o->kind == VIEW_TABLE_RES || o->kind == VIEW_TABLE_MODELS)
		return tableof_render(p, o, t, out);
	if (o->kind == VIEW_FLAMEGRAPH)
		return flamegraph_render(p, o, t, out);
	if (o->kind == VIEW_BARS)
		ret = view_build_bars(p, o, &f);
	else if (o->kind == VIEW_FLOW)
		ret = view_build_flow(p, o, &f);
	else if (o->kind == VIEW_HISTOGRAM)
		ret = view_build_histogram(p, o, &f);
	else
		ret = view_build_scatter(p, o, &f);
	if (ret == 0) {
		if (t == TARGET_SVG)
			svg_render(&f, o, out);
		else if (t == TARGET_HTML)
			html_render(&f, o, out);
		else
			term_render(&f, o, out);
	}
	vfigure_release(&f);
	return ret;
}
