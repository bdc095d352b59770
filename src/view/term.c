/* The terminal renderings: horizontal bars in block characters, and flow
 * and scatter plots on a braille canvas (2x4 dots a character cell). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/common.h"
#include "view/view_priv.h"

static const char *const ansi[] = {"34", "33", "32", "31", "36", "35", "93", "95", "90", "37"};
/* bars: each series its own fill, so they differ without colour too */
static const char *const fills[] = {"\xe2\x96\x88", "\xe2\x96\x93", "\xe2\x96\x92", "\xe2\x96\x91"};
#define POINT_GLYPH "\xe2\x80\xa2" /* • */

static void color_on(const struct view_opts *o, size_t series, struct buf *out)
{
	if (o->color)
		buf_addf(out, "\x1b[%sm", ansi[series % ARRAY_SIZE(ansi)]);
}

static void color_off(const struct view_opts *o, struct buf *out)
{
	if (o->color)
		buf_adds(out, "\x1b[0m");
}

static size_t utf8_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* @s cut to @w columns (with an ellipsis), then padded to @w. */
static void add_fit(const char *s, size_t w, bool right, struct buf *out)
{
	size_t len = utf8_width(s), i, col = 0;

	if (len <= w) {
		if (right)
			buf_addf(out, "%*s", (int)(w - len), "");
		buf_adds(out, s);
		if (!right)
			buf_addf(out, "%*s", (int)(w - len), "");
		return;
	}
	for (i = 0; s[i] && col < w - 1; i++) {
		buf_addc(out, s[i]);
		if ((s[i + 1] & 0xc0) != 0x80)
			col++;
	}
	while ((s[i] & 0xc0) == 0x80)
		buf_addc(out, s[i++]);
	buf_adds(out, "\xe2\x80\xa6");
}

/* The series' marks and names, wrapped at the terminal's width. */
static void legend(const struct vplot *pl, const struct view_opts *o, bool digits, struct buf *out)
{
	size_t s, col = 2;

	buf_adds(out, "  ");
	for (s = 0; s < pl->ns; s++) {
		size_t w = utf8_width(pl->s[s].label) + 2;

		if (s && col + 3 + w > (size_t)o->width) {
			buf_adds(out, "\n  ");
			col = 2;
		} else if (s) {
			buf_adds(out, "   ");
			col += 3;
		}
		color_on(o, s, out);
		if (digits)
			buf_addf(out, "%zu", s + 1);
		else
			buf_adds(out, fills[s % ARRAY_SIZE(fills)]);
		color_off(o, out);
		buf_addf(out, " %s", pl->s[s].label);
		col += w;
	}
	buf_adds(out, "\n");
}

/* One bar of @cells eighths-resolved columns. */
static void bar(double cells, size_t series, bool eighths, const struct view_opts *o,
		struct buf *out)
{
	static const char *const part[] = {"",
					   "\xe2\x96\x8f",
					   "\xe2\x96\x8e",
					   "\xe2\x96\x8d",
					   "\xe2\x96\x8c",
					   "\xe2\x96\x8b",
					   "\xe2\x96\x8a",
					   "\xe2\x96\x89"};
	long full = (long)floor(cells), i;
	int rest = eighths ? (int)floor((cells - (double)full) * 8) : 0;

	color_on(o, series, out);
	for (i = 0; i < full; i++)
		buf_adds(out, eighths ? fills[0] : fills[series % ARRAY_SIZE(fills)]);
	buf_adds(out, part[rest]);
	color_off(o, out);
}

static void bars_line(const struct vplot *pl, size_t x, const struct view_opts *o, double scale,
		      struct buf *out)
{
	double total = 0, done = 0;
	size_t s;

	for (s = 0; s < pl->ns; s++) {
		double y = pl->s[s].y[x];

		if (isnan(y) || y <= 0)
			continue;
		/* cumulative rounding, so segments add up to the total's length */
		bar(round((done + y) * scale) - round(done * scale), s, false, o, out);
		done += y;
	}
	for (s = 0; s < pl->ns; s++)
		total += isnan(pl->s[s].y[x]) ? 0 : pl->s[s].y[x];
	buf_adds(out, " ");
	axis_num(total, out);
	buf_adds(out, "\n");
}

static void term_bars(const struct vplot *pl, const struct view_opts *o, bool stacked,
		      struct buf *out)
{
	double xlo, xhi, ylo, yhi, scale;
	size_t labw = 0, x, s, area;

	plot_ranges(pl, stacked, &xlo, &xhi, &ylo, &yhi);
	for (x = 0; x < pl->nx; x++)
		labw = utf8_width(pl->xcat[x]) > labw ? utf8_width(pl->xcat[x]) : labw;
	labw = labw > (size_t)o->width / 3 ? (size_t)o->width / 3 : labw;
	area = (size_t)o->width > labw + 14 ? (size_t)o->width - labw - 14 : 10;
	scale = yhi > 0 ? (double)area / yhi : 0;
	if (pl->ns > 1)
		legend(pl, o, false, out);
	for (x = 0; x < pl->nx; x++) {
		for (s = 0; s < (stacked ? 1 : pl->ns); s++) {
			double y = pl->s[s].y[x];

			add_fit(s == 0 ? pl->xcat[x] : "", labw, false, out);
			buf_adds(out, " \xe2\x94\x82"); /* │ */
			if (stacked) {
				bars_line(pl, x, o, scale, out);
				continue;
			}
			if (!isnan(y) && y > 0)
				bar(y * scale, s, pl->ns == 1, o, out);
			buf_adds(out, " ");
			if (isnan(y))
				buf_adds(out, "-");
			else
				axis_num(y, out);
			buf_adds(out, "\n");
		}
	}
	buf_addf(out, "%*s \xe2\x94\x94", (int)labw, "");
	for (x = 0; x < area; x++)
		buf_adds(out, "\xe2\x94\x80");
	buf_addf(out, "\n%*s  %s\n", (int)labw, "", pl->ylabel);
}

/* A braille canvas: per cell its dots, its colour and maybe a glyph. */
struct canvas {
	size_t w, h; /* in cells */
	uint8_t *dots;
	int8_t *color; /* series, or -1 */
	char *glyph;   /* 'p' point, '1'..'9' series mark, 0 none */
	double xlo, xhi, ylo, yhi;
};

static void canvas_init(struct canvas *c, size_t w, size_t h)
{
	c->w = w;
	c->h = h;
	c->dots = xcalloc(w * h, 1);
	c->color = xmalloc(w * h);
	memset(c->color, -1, w * h);
	c->glyph = xcalloc(w * h, 1);
}

static void canvas_release(struct canvas *c)
{
	free(c->dots);
	free(c->color);
	free(c->glyph);
}

/* Data to dot coordinates; false when outside. */
static bool to_dot(const struct canvas *c, double x, double y, long *dx, long *dy)
{
	double fx = (x - c->xlo) / (c->xhi - c->xlo), fy = (y - c->ylo) / (c->yhi - c->ylo);

	if (!isfinite(fx) || !isfinite(fy) || fx < -1e-9 || fx > 1 + 1e-9 || fy < -1e-9 ||
	    fy > 1 + 1e-9)
		return false;
	*dx = lround(fx * (double)(2 * c->w - 1));
	*dy = lround((1 - fy) * (double)(4 * c->h - 1));
	return true;
}

static void set_dot(struct canvas *c, long dx, long dy, int series)
{
	static const uint8_t bit[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};
	size_t cell;

	if (dx < 0 || dy < 0 || dx >= (long)(2 * c->w) || dy >= (long)(4 * c->h))
		return;
	cell = (size_t)(dy / 4) * c->w + (size_t)(dx / 2);
	c->dots[cell] |= bit[dy % 4][dx % 2];
	c->color[cell] = (int8_t)series;
}

static void line(struct canvas *c, long x0, long y0, long x1, long y1, int series)
{
	long dx = labs(x1 - x0), dy = -labs(y1 - y0), err = dx + dy;
	long sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;

	for (;;) {
		long e2 = 2 * err;

		set_dot(c, x0, y0, series);
		if (x0 == x1 && y0 == y1)
			return;
		if (e2 >= dy) {
			err += dy;
			x0 += sx;
		}
		if (e2 <= dx) {
			err += dx;
			y0 += sy;
		}
	}
}

static void polyline(struct canvas *c, const double *x, const double *y, size_t n, int series)
{
	long px = 0, py = 0, qx, qy;
	bool have = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (isnan(y[i]) || !to_dot(c, x[i], y[i], &qx, &qy)) {
			have = false;
			continue;
		}
		if (have)
			line(c, px, py, qx, qy, series);
		else
			set_dot(c, qx, qy, series);
		px = qx;
		py = qy;
		have = true;
	}
}

static void mark(struct canvas *c, double x, double y, char g, int series)
{
	long dx, dy;
	size_t cell;

	if (!to_dot(c, x, y, &dx, &dy))
		return;
	cell = (size_t)(dy / 4) * c->w + (size_t)(dx / 2);
	c->glyph[cell] = g;
	c->color[cell] = (int8_t)series;
}

static void cell_out(const struct canvas *c, size_t i, const struct view_opts *o, struct buf *out)
{
	if (c->color[i] >= 0)
		color_on(o, (size_t)c->color[i], out);
	if (c->glyph[i] == 'p')
		buf_adds(out, POINT_GLYPH);
	else if (c->glyph[i])
		buf_addc(out, c->glyph[i]);
	else if (c->dots[i])
		buf_addf(out, "%c%c%c", 0xe2, 0xa0 | (c->dots[i] >> 6), 0x80 | (c->dots[i] & 0x3f));
	else
		buf_addc(out, ' ');
	if (c->color[i] >= 0)
		color_off(o, out);
}

/* Which canvas row shows tick value @t. */
static size_t tick_row(const struct canvas *c, double t)
{
	double f = (t - c->ylo) / (c->yhi - c->ylo);

	return (size_t)lround((1 - f) * (double)(c->h - 1));
}

static void x_labels(const struct canvas *c, size_t indent, struct buf *out)
{
	double ticks[16];
	size_t n = axis_ticks(c->xlo, c->xhi, c->w / 12 + 1, ticks, ARRAY_SIZE(ticks)), i;
	char *row = xmalloc(c->w + indent + 32);
	struct buf t = BUF_INIT;

	memset(row, ' ', c->w + indent + 31);
	row[c->w + indent + 31] = 0;
	for (i = 0; i < n; i++) {
		double f = (ticks[i] - c->xlo) / (c->xhi - c->xlo);
		size_t col = indent + (size_t)lround(f * (double)(c->w - 1)), start;

		buf_reset(&t);
		axis_num(ticks[i], &t);
		start = col >= t.len / 2 ? col - t.len / 2 : 0;
		if (start + t.len > c->w + indent + 31 || (start && row[start - 1] != ' ') ||
		    row[start] != ' ' || row[start + t.len - 1] != ' ')
			continue;
		memcpy(row + start, t.data, t.len);
	}
	for (i = c->w + indent + 31; i > 0 && row[i - 1] == ' '; i--)
		row[i - 1] = 0;
	buf_addf(out, "%s\n", row);
	free(row);
	buf_release(&t);
}

static void canvas_out(const struct canvas *c, const struct vplot *pl, const struct view_opts *o,
		       struct buf *out)
{
	double ticks[16];
	size_t nt = axis_ticks(c->ylo, c->yhi, c->h / 4 + 1, ticks, ARRAY_SIZE(ticks));
	struct buf lab[16];
	size_t yw = 0, r, i, k;

	for (k = 0; k < nt; k++) {
		lab[k] = (struct buf)BUF_INIT;
		axis_num(ticks[k], &lab[k]);
		yw = lab[k].len > yw ? lab[k].len : yw;
	}
	buf_addf(out, "%*s%s\n", (int)yw + 1, "", pl->ylabel);
	for (r = 0; r < c->h; r++) {
		const char *tick = NULL;

		for (k = 0; k < nt; k++)
			if (tick_row(c, ticks[k]) == r)
				tick = buf_str(&lab[k]);
		buf_addf(out, "%*s %s", (int)yw, tick ? tick : "",
			 tick ? "\xe2\x94\xa4" : "\xe2\x94\x82");
		for (i = 0; i < c->w; i++)
			cell_out(c, r * c->w + i, o, out);
		buf_adds(out, "\n");
	}
	buf_addf(out, "%*s \xe2\x94\x94", (int)yw, "");
	for (i = 0; i < c->w; i++)
		buf_adds(out, "\xe2\x94\x80");
	buf_adds(out, "\n");
	x_labels(c, yw + 2, out);
	buf_addf(out, "%*s%s\n", (int)(yw + 2 + (c->w - utf8_width(pl->xlabel)) / 2), "",
		 pl->xlabel);
	for (k = 0; k < nt; k++)
		buf_release(&lab[k]);
}

/* The widest y tick label, so the canvas can take the rest of the width. */
static size_t ylabel_width(double lo, double hi, size_t h)
{
	double ticks[16];
	size_t n = axis_ticks(lo, hi, h / 4 + 1, ticks, ARRAY_SIZE(ticks)), w = 0, k;
	struct buf t = BUF_INIT;

	for (k = 0; k < n; k++) {
		buf_reset(&t);
		axis_num(ticks[k], &t);
		w = t.len > w ? t.len : w;
	}
	buf_release(&t);
	return w;
}

static void canvas_for(const struct vplot *pl, const struct view_opts *o, bool stacked, size_t h,
		       struct canvas *c)
{
	double xlo, xhi, ylo, yhi;
	size_t used;

	plot_ranges(pl, stacked, &xlo, &xhi, &ylo, &yhi);
	axis_nice(&ylo, &yhi, h / 2);
	used = ylabel_width(ylo, yhi, h) + 2 + 3; /* labels, axis, x labels' overhang */
	canvas_init(c, (size_t)o->width > used + 16 ? (size_t)o->width - used : 16, h);
	c->xlo = xlo;
	c->xhi = xhi;
	c->ylo = ylo;
	c->yhi = yhi;
}

static void term_flow(const struct vplot *pl, const struct view_opts *o, bool stacked,
		      struct buf *out)
{
	struct canvas c;
	double *sum = xcalloc(pl->nx + 1, sizeof(double)), *y = xcalloc(pl->nx + 1, sizeof(double));
	size_t s, i;

	canvas_for(pl, o, stacked, 16, &c);
	for (s = 0; s < pl->ns; s++) {
		for (i = 0; i < pl->nx; i++) {
			double v = pl->s[s].y[i];

			sum[i] += stacked && !isnan(v) ? v : 0;
			y[i] = stacked ? sum[i] : v;
		}
		polyline(&c, pl->x, y, pl->nx, (int)s);
		for (i = pl->nx; i > 0 && isnan(y[i - 1]); i--)
			;
		if (i && pl->ns > 1 && s < 9)
			mark(&c, pl->x[i - 1], y[i - 1], (char)('1' + s), (int)s);
	}
	if (pl->ns > 1)
		legend(pl, o, true, out);
	canvas_out(&c, pl, o, out);
	canvas_release(&c);
	free(sum);
	free(y);
}

/* "• N measurements" and one entry per model, wrapped at the width. */
static void scatter_legend(const struct vplot *pl, const struct view_opts *o, struct buf *out)
{
	struct buf e = BUF_INIT;
	size_t i, col;

	buf_addf(&e, "%zu measurement%s", pl->npts, pl->npts == 1 ? "" : "s");
	buf_adds(out, "  ");
	color_on(o, 0, out);
	buf_adds(out, POINT_GLYPH);
	color_off(o, out);
	buf_addf(out, " %s", buf_str(&e));
	col = 4 + utf8_width(buf_str(&e));
	for (i = 0; i < pl->ncurves; i++) {
		size_t w = utf8_width(pl->curves[i].label) + 2;

		if (col + 3 + w > (size_t)o->width) {
			buf_adds(out, "\n  ");
			col = 2 + w;
		} else {
			buf_adds(out, "   ");
			col += 3 + w;
		}
		color_on(o, i + 1, out);
		buf_adds(out, "\xe2\xa0\xa4"); /* ⠤ */
		color_off(o, out);
		buf_addf(out, " %s", pl->curves[i].label);
	}
	buf_adds(out, "\n");
	buf_release(&e);
}

static void term_scatter(const struct vplot *pl, const struct view_opts *o, struct buf *out)
{
	struct canvas c;
	size_t i;

	canvas_for(pl, o, false, 12, &c);
	for (i = 0; i < pl->ncurves; i++)
		polyline(&c, pl->curves[i].x, pl->curves[i].y, pl->curves[i].n, (int)i + 1);
	for (i = 0; i < pl->npts; i++)
		mark(&c, pl->px[i], pl->py[i], 'p', 0);
	scatter_legend(pl, o, out);
	canvas_out(&c, pl, o, out);
	canvas_release(&c);
}

void term_render(const struct vfigure *f, const struct view_opts *o, struct buf *out)
{
	size_t i;

	buf_addf(out, "%s\n", f->title);
	for (i = 0; i < f->n; i++) {
		const struct vplot *pl = &f->plots[i];

		if (pl->title)
			buf_addf(out, "\n%s\n", pl->title);
		else
			buf_adds(out, "\n");
		if (f->kind == VIEW_BARS)
			term_bars(pl, o, f->stacked, out);
		else if (f->kind == VIEW_FLOW)
			term_flow(pl, o, f->stacked, out);
		else
			term_scatter(pl, o, out);
	}
}
