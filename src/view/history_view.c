/*
 * The history chart (`log --perf -o FILE`, and the browser pages): one
 * panel per series, the versions across (oldest left), each version's
 * median as a point on a line, its quartiles as a band, and each change
 * point marked where its segment starts, with the shift. SVG is a static
 * picture (a point's <title> names its commit); HTML draws the same data
 * with uPlot (web/veles-history.js): hover for the commit, its date and
 * subject, zoom and pan.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze/history.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "view/svg_axis.h"
#include "view/view.h"
#include "view/view_priv.h"

#define HW 960.0
#define HH 400.0 /* one panel */
#define HML 84.0 /* left margin: y tick labels */
#define HMR 30.0 /* right margin */
#define HMT 64.0 /* the panel's title and legend */
#define HMB 84.0 /* x labels, tilted */
#define HHEAD 40.0
#define LABEL_W 14.0 /* room one tilted x label takes across */

#define CHANGE_COLOUR "#d62728"

struct hframe {
	double x0, y0, x1, y1, ylo, yhi;
	size_t n;
};

static double hx(const struct hframe *f, size_t i)
{
	return f->x0 + ((double)i + 0.5) / (double)f->n * (f->x1 - f->x0);
}

static double hy(const struct hframe *f, double y)
{
	return f->y1 - (y - f->ylo) / (f->yhi - f->ylo) * (f->y1 - f->y0);
}

/* The versions' labels, tilted; every k-th when they would overlap. */
static void x_labels(const struct hframe *f, const struct history *h,
		     const struct history_series *s, struct buf *out)
{
	size_t every = 1;

	while ((double)s->n / (double)every * LABEL_W > f->x1 - f->x0)
		every++;
	for (size_t i = 0; i < s->n; i += every) {
		double x = hx(f, i);

		buf_addf(out,
			 "<line class=\"tick\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
			 x, f->y1, x, f->y1 + 5);
		buf_addf(out,
			 "<text transform=\"translate(%.1f %.1f) rotate(-45)\" "
			 "text-anchor=\"end\" class=\"version\">",
			 x + 3, f->y1 + 14);
		buf_add_xml(out, h->versions[s->pts[i].version].label, 16);
		buf_adds(out, "</text>\n");
	}
}

static void y_range(const struct history_series *s, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < s->n; i++) {
		const struct history_point *p = &s->pts[i];

		*lo = fmin(*lo, fmin(p->q1, p->median));
		*hi = fmax(*hi, fmax(p->q3, p->median));
	}
	if (!isfinite(*lo) || !isfinite(*hi)) {
		*lo = 0;
		*hi = 1;
	}
	axis_range(lo, hi);
	axis_nice(lo, hi, 6);
}

/* The point's tooltip: the commit, and what was measured there. */
static void point_title(const struct history *h, const struct history_series *s,
			const struct history_point *p, struct buf *out)
{
	const struct history_version *v = &h->versions[p->version];
	struct buf t = BUF_INIT;

	buf_addf(&t, "%s %s\nmedian %.6g%s%s, q1..q3 %.6g..%.6g, n %zu", v->label, v->summary,
		 p->median, *s->unit ? " " : "", s->unit, p->q1, p->q3, p->n);
	if (p->change && isfinite(p->shift))
		buf_addf(&t, "\nchange point: shift %+.1f%%", 100 * p->shift);
	buf_adds(out, "<title>");
	buf_add_xml(out, buf_str(&t), 400);
	buf_adds(out, "</title>");
	buf_release(&t);
}

static void band_and_line(const struct hframe *f, const struct history *h,
			  const struct history_series *s, const char *col, struct buf *out)
{
	buf_addf(out, "<polygon class=\"band\" fill=\"%s\" fill-opacity=\"0.18\" points=\"", col);
	for (size_t i = 0; i < s->n; i++)
		buf_addf(out, "%.1f,%.1f ", hx(f, i), hy(f, s->pts[i].q3));
	for (size_t i = s->n; i > 0; i--)
		buf_addf(out, "%.1f,%.1f ", hx(f, i - 1), hy(f, s->pts[i - 1].q1));
	buf_adds(out, "\"/>\n");
	buf_addf(out,
		 "<polyline class=\"median\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
		 "points=\"",
		 col);
	for (size_t i = 0; i < s->n; i++)
		buf_addf(out, "%.1f,%.1f ", hx(f, i), hy(f, s->pts[i].median));
	buf_adds(out, "\"/>\n");
	for (size_t i = 0; i < s->n; i++) {
		const struct history_point *p = &s->pts[i];

		buf_addf(out,
			 "<circle class=\"point%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\">",
			 p->change ? " change" : "", hx(f, i), hy(f, p->median),
			 p->change ? "5" : "3.5", p->change ? CHANGE_COLOUR : col);
		point_title(h, s, p, out);
		buf_adds(out, "</circle>\n");
	}
}

/* A dashed line where each new segment starts, its shift above it. */
static void change_marks(const struct hframe *f, const struct history_series *s, struct buf *out)
{
	for (size_t i = 1; i < s->n; i++) {
		const struct history_point *p = &s->pts[i];
		double x = (hx(f, i - 1) + hx(f, i)) / 2;
		char shift[32];

		if (!p->change)
			continue;
		buf_addf(out,
			 "<line class=\"change\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			 "stroke=\"" CHANGE_COLOUR "\" stroke-dasharray=\"5 4\"/>\n",
			 x, f->y0, x, f->y1);
		snprintf(shift, sizeof(shift), "%+.1f%%", 100 * p->shift);
		svg_text(out, x + 3, f->y0 + 12, "start",
			 " class=\"shift\" fill=\"" CHANGE_COLOUR "\"", shift, 16);
	}
}

static void legend(const struct hframe *f, double top, const char *col, struct buf *out)
{
	double x = f->x0, y = top + 48;

	buf_addf(out,
		 "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		 "stroke-width=\"2\"/><circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n",
		 x, y - 4, x + 18, y - 4, col, x + 9, y - 4, col);
	svg_text(out, x + 24, y, "start", "", "median", 10);
	buf_addf(out,
		 "<rect x=\"%.1f\" y=\"%.1f\" width=\"18\" height=\"10\" fill=\"%s\" "
		 "fill-opacity=\"0.18\"/>\n",
		 x + 90, y - 9, col);
	svg_text(out, x + 114, y, "start", "", "quartiles (q1..q3)", 20);
	buf_addf(out,
		 "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"" CHANGE_COLOUR
		 "\" stroke-dasharray=\"5 4\"/>\n",
		 x + 250, y - 10, x + 250, y + 2);
	svg_text(out, x + 258, y, "start", "", "change point", 14);
}

static void svg_panel(const struct history *h, size_t k, double top, struct buf *out)
{
	const struct history_series *s = &h->s[k];
	const char *col = view_palette[0];
	struct hframe f = {HML, top + HMT, HW - HMR, top + HH - HMB, 0, 1, s->n};
	struct buf t = BUF_INIT;

	y_range(s, &f.ylo, &f.yhi);
	buf_adds(out, "<g class=\"panel\">\n");
	buf_addf(&t, "%s: %s", s->title, s->location);
	svg_text(out, f.x0, top + 26, "start", " class=\"plot-title\"", buf_str(&t), 110);
	legend(&f, top, col, out);
	buf_reset(&t);
	buf_addf(&t, "median%s%s%s", *s->unit ? " (" : "", s->unit, *s->unit ? ")" : "");
	svg_y_axis(&(struct svg_area){f.x0, f.y0, f.x1, f.y1, f.ylo, f.yhi}, buf_str(&t), 66, out);
	x_labels(&f, h, s, out);
	change_marks(&f, s, out);
	band_and_line(&f, h, s, col, out);
	buf_addf(out, "<path class=\"axis\" d=\"M%.1f %.1fV%.1fH%.1f\"/>\n", f.x0, f.y0, f.y1,
		 f.x1);
	buf_adds(out, "</g>\n");
	buf_release(&t);
}

static void svg_history(const struct history *h, const char *title, struct buf *out)
{
	double height = HHEAD + HH * (double)h->ns;

	svg_chart_begin(out, HW, height,
			".version{font-family:monospace;font-size:11px}"
			".shift{font-size:11px;font-weight:bold}");
	svg_text(out, HW / 2, 26, "middle", " class=\"fig-title\"", title, 110);
	for (size_t k = 0; k < h->ns; k++)
		svg_panel(h, k, HHEAD + HH * (double)k, out);
	buf_adds(out, "</svg>\n");
}

static void html_history(const struct history *h, const char *title, struct buf *out)
{
	struct buf json = BUF_INIT;

	buf_adds(&json, "{\"title\":");
	buf_add_json_str(&json, title, strlen(title));
	buf_adds(&json, ",\"palette\":[");
	for (size_t i = 0; i < view_palette_len; i++)
		buf_addf(&json, "%s\"%s\"", i ? "," : "", view_palette[i]);
	buf_adds(&json, "],\"change_colour\":\"" CHANGE_COLOUR "\",\"versions\":");
	history_versions_json(h, &json);
	buf_adds(&json, ",\"series\":");
	history_series_json(h, &json);
	buf_addc(&json, '}');
	html_page(title,
		  "Hover a point for its commit; drag to zoom in, wheel to zoom, Shift+drag to "
		  "pan, double-click to reset. A dashed line marks a change point, where the "
		  "series shifted.",
		  "VELES_HISTORY", &json, "veles-history.js", out);
	buf_release(&json);
}

int view_history_render(const struct history *h, const char *title, enum view_target t,
			struct buf *out)
{
	if (t == TARGET_TERM)
		return err_set(ERR_INVALID, "the history chart is drawn as SVG or HTML");
	if (!h->ns)
		return err_set(ERR_INVALID, "no series to draw");
	if (t == TARGET_SVG)
		svg_history(h, title, out);
	else
		html_history(h, title, out);
	return 0;
}
