/* The SVG renderings: one standalone document, plots stacked downwards. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/common.h"
#include "view/svg_axis.h"
#include "view/view_priv.h"

#define W 900.0
#define H 460.0
#define ML 80.0	 /* left margin: y tick labels and title */
#define MR 230.0 /* right margin: the legend */
#define MT 50.0
#define MB 96.0
#define HEAD 40.0 /* the figure's title */
#define ROW 20.0  /* one legend entry */

/* Where a plot's drawing area lies, and its data ranges. */
struct frame {
	double top;	     /* of the plot's block */
	size_t legend_chars; /* the longest legend label that fits */
	double x0, y0, x1, y1;
	double xlo, xhi, ylo, yhi;
};

static double fx(const struct frame *f, double x)
{
	return f->x0 + (x - f->xlo) / (f->xhi - f->xlo) * (f->x1 - f->x0);
}

static double fy(const struct frame *f, double y)
{
	return f->y1 - (y - f->ylo) / (f->yhi - f->ylo) * (f->y1 - f->y0);
}

static const char *color(size_t i)
{
	return view_palette[i % view_palette_len];
}

static void x_axis_numeric(const struct frame *f, struct buf *out)
{
	double ticks[16];
	size_t n = axis_ticks(f->xlo, f->xhi, 8, ticks, ARRAY_SIZE(ticks)), i;
	struct buf t = BUF_INIT;

	for (i = 0; i < n; i++) {
		double x = fx(f, ticks[i]);

		buf_addf(out,
			 "<line class=\"tick\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
			 x, f->y1, x, f->y1 + 5);
		buf_reset(&t);
		axis_num(ticks[i], &t);
		svg_text(out, x, f->y1 + 19, "middle", "", buf_str(&t), 12);
	}
	buf_release(&t);
}

static void frame_box(const struct frame *f, const struct vplot *pl, struct buf *out)
{
	buf_addf(out, "<path class=\"axis\" d=\"M%.1f %.1fV%.1fH%.1f\"/>\n", f->x0, f->y0, f->y1,
		 f->x1);
	svg_text(out, (f->x0 + f->x1) / 2, f->y1 + 80, "middle", " class=\"axis-title\"",
		 pl->xlabel, 80);
	if (pl->title)
		svg_text(out, f->x0, f->top + 30, "start", " class=\"plot-title\"", pl->title, 90);
}

/* A legend entry: a swatch (rectangle, or a line with @dot for scatter). */
static void legend_entry(const struct frame *f, size_t i, const char *col, const char *kind,
			 const char *label, struct buf *out)
{
	double x = f->x1 + 20, y = f->y0 + 8 + ROW * (double)i;

	if (strcmp(kind, "dot") == 0)
		buf_addf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", x + 7,
			 y - 4, col);
	else if (strcmp(kind, "line") == 0)
		buf_addf(out,
			 "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			 "stroke-width=\"2.5\"/>\n",
			 x, y - 4, x + 14, y - 4, col);
	else
		buf_addf(out,
			 "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\" fill=\"%s\"/>\n",
			 x, y - 9, col);
	svg_text(out, x + 20, y, "start", "", label, f->legend_chars);
}

static void svg_bars(const struct frame *f, const struct vplot *pl, bool stacked, struct buf *out)
{
	double band = (f->x1 - f->x0) / (double)pl->nx;
	double bw = band * 0.8 / (stacked ? 1 : (double)pl->ns);
	bool tilt = false;
	size_t x, s;

	for (x = 0; x < pl->nx; x++) /* tilt the labels only when one does not fit */
		tilt = tilt || 7.0 * (double)strlen(pl->xcat[x]) > band * 0.9;

	for (x = 0; x < pl->nx; x++) {
		double base = 0, left = f->x0 + band * ((double)x + 0.1), cx = left + band * 0.4;

		for (s = 0; s < pl->ns; s++) {
			double y = pl->s[s].y[x], top, bot;

			if (isnan(y))
				continue;
			top = fy(f, (stacked ? base : 0) + fmax(y, 0));
			bot = fy(f, stacked ? base : 0);
			buf_addf(out,
				 "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				 "fill=\"%s\"><title>",
				 stacked ? left : left + bw * (double)s, top, bw, bot - top,
				 color(s));
			buf_add_xml(out, pl->s[s].label, 200);
			buf_addf(out, ": %g</title></rect>\n", y);
			base += stacked ? fmax(y, 0) : 0;
		}
		if (tilt)
			buf_addf(out,
				 "<text transform=\"translate(%.1f %.1f) rotate(-30)\" "
				 "text-anchor=\"end\">",
				 cx, f->y1 + 14);
		else
			buf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", cx,
				 f->y1 + 19);
		buf_add_xml(out, pl->xcat[x], tilt ? 12 : (size_t)(band / 7));
		buf_adds(out, "</text>\n");
	}
	for (s = 0; s < pl->ns; s++)
		legend_entry(f, s, color(s), "rect", pl->s[s].label, out);
}

static void points_attr(const struct frame *f, const double *x, const double *y, size_t n,
			struct buf *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isnan(y[i]))
			buf_addf(out, "%.1f,%.1f ", fx(f, x[i]), fy(f, y[i]));
}

static void svg_flow(const struct frame *f, const struct vplot *pl, bool stacked, struct buf *out)
{
	double *lo = xcalloc(pl->nx + 1, sizeof(double)), *hi = xcalloc(pl->nx + 1, sizeof(double));
	size_t s, i;

	x_axis_numeric(f, out);
	for (s = 0; s < pl->ns; s++) {
		for (i = 0; i < pl->nx; i++) {
			double v = isnan(pl->s[s].y[i]) ? 0 : pl->s[s].y[i];

			lo[i] = stacked ? hi[i] : 0;
			hi[i] = stacked ? lo[i] + v : pl->s[s].y[i];
		}
		if (stacked) {
			buf_addf(out, "<polygon fill=\"%s\" fill-opacity=\"0.55\" points=\"",
				 color(s));
			points_attr(f, pl->x, hi, pl->nx, out);
			for (i = pl->nx; i > 0; i--)
				buf_addf(out, "%.1f,%.1f ", fx(f, pl->x[i - 1]), fy(f, lo[i - 1]));
			buf_adds(out, "\"/>\n");
		}
		buf_addf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
			 color(s));
		points_attr(f, pl->x, hi, pl->nx, out);
		buf_adds(out, "\"/>\n");
		legend_entry(f, s, color(s), stacked ? "rect" : "line", pl->s[s].label, out);
	}
	free(lo);
	free(hi);
}

static void svg_scatter(const struct frame *f, const struct vplot *pl, struct buf *out)
{
	size_t i;

	x_axis_numeric(f, out);
	for (i = 0; i < pl->npts; i++)
		buf_addf(out,
			 "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" "
			 "fill-opacity=\"0.6\"/>\n",
			 fx(f, pl->px[i]), fy(f, pl->py[i]), color(0));
	legend_entry(f, 0, color(0), "dot", "measurements", out);
	for (i = 0; i < pl->ncurves; i++) {
		buf_addf(out,
			 "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\" points=\"",
			 color(i + 1));
		points_attr(f, pl->curves[i].x, pl->curves[i].y, pl->curves[i].n, out);
		buf_adds(out, "\"/>\n");
		legend_entry(f, i + 1, color(i + 1), "line", pl->curves[i].label, out);
	}
}

/* Characters, not bytes: "–" and "²" are one each. */
static size_t text_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* Legend labels up to this many characters widen the figure to fit. */
#define LEGEND_MAX_CHARS 48
#define CHAR_W 6.8 /* a 12px sans-serif character, roughly */

/* The longest legend label of the figure, in characters. */
static size_t legend_chars(const struct vfigure *fig)
{
	size_t most = 28;

	for (size_t k = 0; k < fig->n; k++) {
		const struct vplot *pl = &fig->plots[k];
		size_t n = fig->kind == VIEW_SCATTER ? pl->ncurves : pl->ns;

		for (size_t i = 0; i < n; i++) {
			const char *l =
				fig->kind == VIEW_SCATTER ? pl->curves[i].label : pl->s[i].label;
			size_t c = l ? text_chars(l) : 0;

			most = c > most ? c : most;
		}
	}
	return most < LEGEND_MAX_CHARS ? most : LEGEND_MAX_CHARS;
}

/* The right margin that holds the legend's labels. */
static double legend_margin(size_t chars)
{
	double m = 40 + CHAR_W * (double)chars;

	return m > MR ? m : MR;
}

/* A plot's height: taller than H when its legend needs the room, so a
 * uid with many models (interval, bisection) does not run into the next. */
static double plot_height(const struct vfigure *fig, const struct vplot *pl)
{
	size_t entries = fig->kind == VIEW_SCATTER ? pl->ncurves + 1 : pl->ns;
	double legend = MT + 8 + ROW * (double)entries + MB - 20;

	return legend > H ? legend : H;
}

static void svg_plot(const struct vfigure *fig, size_t k, double top, size_t chars, struct buf *out)
{
	const struct vplot *pl = &fig->plots[k];
	struct frame f;

	f.top = top;
	f.legend_chars = chars;
	f.x0 = ML;
	f.x1 = W - MR;
	f.y0 = f.top + MT;
	f.y1 = f.top + plot_height(fig, pl) - MB;
	plot_ranges(pl, fig->stacked, &f.xlo, &f.xhi, &f.ylo, &f.yhi);
	axis_nice(&f.ylo, &f.yhi, 10);
	if (fig->kind == VIEW_BARS) {
		f.xlo = -0.5;
		f.xhi = (double)pl->nx - 0.5;
	}
	buf_adds(out, "<g class=\"plot\">\n");
	svg_y_axis(&(struct svg_area){f.x0, f.y0, f.x1, f.y1, f.ylo, f.yhi}, pl->ylabel, 62, out);
	if (fig->kind == VIEW_BARS)
		svg_bars(&f, pl, fig->stacked, out);
	else if (fig->kind == VIEW_FLOW)
		svg_flow(&f, pl, fig->stacked, out);
	else
		svg_scatter(&f, pl, out);
	frame_box(&f, pl, out);
	buf_adds(out, "</g>\n");
}

void svg_render(const struct vfigure *f, const struct view_opts *o, struct buf *out)
{
	double height = HEAD, top = HEAD;
	size_t k, chars = legend_chars(f);
	double width = W - MR + legend_margin(chars);

	for (k = 0; k < f->n; k++)
		height += plot_height(f, &f->plots[k]);
	svg_chart_begin(out, width, height, "");
	svg_text(out, width / 2, 26, "middle", " class=\"fig-title\"", f->title, 100);
	for (k = 0; k < f->n; k++) {
		svg_plot(f, k, top, chars, out);
		top += plot_height(f, &f->plots[k]);
	}
	buf_adds(out, "</svg>\n");
	UNUSED(o);
}
