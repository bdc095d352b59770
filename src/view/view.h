/*
 * The graphical and tabular views of `veles show`: tableof, bars, flow,
 * scatter and histogram. A view is built in two steps: the data step (view_data.c,
 * view_models.c) turns a profile into figures of plain numbers, and a
 * renderer (term.c, svg.c, html.c, tableof.c) turns figures into text.
 * See docs/cli/show.md.
 */
#ifndef VIEW_VIEW_H
#define VIEW_VIEW_H

#include <stdbool.h>
#include <stddef.h>

struct buf;
struct profile;

enum view_kind {
	VIEW_BARS,
	VIEW_FLOW,
	VIEW_SCATTER,
	VIEW_TABLE_RES,
	VIEW_TABLE_MODELS,
	VIEW_FLAMEGRAPH,
	VIEW_HISTOGRAM, /* drawn as bars: a plot per function, a bar per bucket */
};
enum view_agg { AGG_SUM, AGG_MEAN, AGG_MEDIAN, AGG_MIN, AGG_MAX, AGG_COUNT };
enum view_target { TARGET_TERM, TARGET_SVG, TARGET_HTML };
enum table_fmt { TFMT_PLAIN, TFMT_MARKDOWN, TFMT_CSV, TFMT_JSON };

#define VIEW_MAX_HEADERS 32
#define VIEW_MAX_FILTERS 16

struct view_filter {
	const char *key;
	const char *value;
};

struct view_opts {
	enum view_kind kind;
	const char *of;	 /* the measured value; NULL: "amount" */
	const char *per; /* the x axis; NULL: the view's default */
	const char *by;	 /* one series per value of this key; NULL: the view's default */
	enum view_agg agg;
	bool stacked;	 /* bars and flow: series on top of each other */
	bool accumulate; /* flow: running sums along x */
	const char *headers[VIEW_MAX_HEADERS];
	size_t nheaders;
	const char *sort_by;
	bool sort_desc;
	size_t limit; /* tableof: at most this many rows (after sorting); histogram:
		       * plots; 0: all */
	struct view_filter filters[VIEW_MAX_FILTERS];
	size_t nfilters;
	enum table_fmt tfmt;
	const char *title;
	int width;  /* terminal columns */
	bool color; /* ANSI colours in the terminal rendering */
};

/* Fills @o with the defaults of @kind. */
void view_opts_init(struct view_opts *o, enum view_kind kind);
int view_parse_agg(const char *s, enum view_agg *out);
int view_parse_table_fmt(const char *s, enum table_fmt *out);
const char *view_agg_name(enum view_agg a);

/*
 * Renders the view of @p into @out. Returns 0, or a negative ERR_* with a
 * message (a key the profile lacks, a non-numeric axis, bad models, ...).
 */
int view_render(const struct profile *p, const struct view_opts *o, enum view_target t,
		struct buf *out);

/*
 * The models of a profile (its "models" JSON) as a text table: model, uid
 * [subtype], coefficients (a smoothing model's point count), r² and x range.
 * *@count is how many there are (the table is a header alone for none).
 */
int view_models_table(const char *models, struct buf *out, size_t *count);

struct history;
/*
 * The history chart of analyze/history.h titled @title: a panel per
 * series, the versions across, medians on a line with their quartiles as a
 * band, change points marked with their shifts. TARGET_SVG is a static
 * picture; TARGET_HTML a self-contained page whose tooltips name each
 * point's commit. ERR_INVALID for the terminal.
 */
int view_history_render(const struct history *h, const char *title, enum view_target t,
			struct buf *out);

#endif
