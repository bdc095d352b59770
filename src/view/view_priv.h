/* What the data step hands the renderers: figures of plain numbers. */
#ifndef VIEW_VIEW_PRIV_H
#define VIEW_VIEW_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "analyze/models.h"
#include "view/view.h"

struct buf;
struct profile;

/* One series over the plot's x positions: y[i] is NaN where it has none. */
struct vseries {
	char *label;
	double *y;
};

/* A model's curve, sampled; a regressogram's is already a staircase. */
struct vcurve {
	char *label;
	size_t n;
	double *x, *y;
};

struct vplot {
	char *title, *xlabel, *ylabel;
	/* bars and flow: x positions, and for bars the category names */
	size_t nx;
	double *x;
	char **xcat; /* NULL when x is numeric */
	size_t ns;
	struct vseries *s;
	/* scatter: the measured points and the models' curves */
	size_t npts;
	double *px, *py;
	size_t ncurves;
	struct vcurve *curves;
};

struct vfigure {
	enum view_kind kind;
	bool stacked;
	char *title;
	size_t n;
	struct vplot *plots;
};

/* view_data.c */
bool view_row_matches(const struct profile *p, size_t row, const struct view_opts *o,
		      struct buf *scratch);
/* A resource's value of @key as text ("" when absent); *num is its number
 * or NaN. */
const char *view_value(const struct profile *p, size_t row, const char *key, struct buf *scratch,
		       double *num);
bool view_has_key(const struct profile *p, const char *key);
int view_build_bars(const struct profile *p, const struct view_opts *o, struct vfigure *f);
int view_build_flow(const struct profile *p, const struct view_opts *o, struct vfigure *f);
/* view_hist.c */
int view_build_histogram(const struct profile *p, const struct view_opts *o, struct vfigure *f);
void vfigure_release(struct vfigure *f);
double view_aggregate(enum view_agg a, double *v, size_t n);

/* view_models.c */
double view_model_eval(const struct model_rec *m, double x);
bool view_model_parametric(const struct model_rec *m);
/* The model's curve over [lo, hi] (its own interval, clipped). */
void view_model_curve(const struct model_rec *m, double lo, double hi, struct vcurve *c);
int view_build_scatter(const struct profile *p, const struct view_opts *o, struct vfigure *f);

/* axis.c: ticks and numbers for the axes */
size_t axis_ticks(double lo, double hi, size_t want, double *ticks, size_t max);
void axis_range(double *lo, double *hi);
/* Widens [lo, hi] to whole steps of the ticks axis_ticks() would choose. */
void axis_nice(double *lo, double *hi, size_t want);
void axis_num(double v, struct buf *out);
/* Seconds in one @unit ("ns", "us", "µs", "ms", "s"); 0 for any other. */
double axis_time_unit(const char *unit);
/* @v (of a unit of @unit_s seconds) as a person writes it: 80.35 ms, not
 * 8.035e+04 us; a range in one unit, that of its larger end. */
void axis_time(double v, double unit_s, struct buf *out);
void axis_time_range(double lo, double hi, double unit_s, struct buf *out);
void plot_ranges(const struct vplot *pl, bool stacked, double *xlo, double *xhi, double *ylo,
		 double *yhi);

/* the renderers */
int tableof_render(const struct profile *p, const struct view_opts *o, enum view_target target,
		   struct buf *out);
void term_render(const struct vfigure *f, const struct view_opts *o, struct buf *out);
void svg_render(const struct vfigure *f, const struct view_opts *o, struct buf *out);
void html_render(const struct vfigure *f, const struct view_opts *o, struct buf *out);
/* A self-contained page: uPlot and our stylesheet inline, @json as the
 * constant @var, then the embedded @script that draws it. */
void html_page(const char *title, const char *help, const char *var, const struct buf *json,
	       const char *script, struct buf *out);
/* @json made safe inside <script> (no '<', '>' or '&'). */
void html_script_json(const char *json, size_t len, struct buf *out);

/* A palette shared by SVG and HTML, so both show a series in one colour. */
extern const char *const view_palette[];
extern const size_t view_palette_len;

#endif
