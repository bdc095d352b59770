/*
 * What the SVG charts draw alike: the document's head, a text, and the y
 * axis with its grid
 * (the figures of `veles show`, svg.c, and the history chart of
 * `veles log --perf`, history_view.c).
 */
#ifndef VIEW_SVG_AXIS_H
#define VIEW_SVG_AXIS_H

#include <stddef.h>

struct buf;

/* A plot's drawing area, in the picture's units (y grows downwards), and
 * the data range its height shows. */
struct svg_area {
	double x0, y0, x1, y1;
	double ylo, yhi;
};

/* Where the value @y lies on the area's height. */
static inline double svg_area_y(const struct svg_area *a, double y)
{
	return a->y1 - (y - a->ylo) / (a->yhi - a->ylo) * (a->y1 - a->y0);
}

/* The chart's document up to its white background: the SVG element of
 * @width x @height and the style of axes, grid and titles, @style's rules
 * (or "") after them. */
void svg_chart_begin(struct buf *out, double width, double height, const char *style);

/* <text> at (@x, @y) anchored at @anchor ("start", "middle", "end"),
 * @extra attributes (" class=...") after; @s escaped, cut after @max
 * characters (an ellipsis marks the cut). */
void svg_text(struct buf *out, double x, double y, const char *anchor, const char *extra,
	      const char *s, size_t max);

/*
 * The y axis of @a: a grid line across the area at each of about six
 * ticks at 1-2-5 steps, each tick's number left of it, and @label turned
 * upright, centred on the height @title_dx left of the area.
 */
void svg_y_axis(const struct svg_area *a, const char *label, double title_dx, struct buf *out);

#endif
