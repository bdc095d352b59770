/* What the SVG charts draw alike (svg_axis.h). */
#include "view/svg_axis.h"

#include "util/buf.h"
#include "util/common.h"
#include "view/view_priv.h"

void svg_chart_begin(struct buf *out, double width, double height, const char *style)
{
	buf_addf(out,
		 "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		 "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
		 "<style>.grid{stroke:#e3e3e3}.axis{stroke:#333;fill:none}.tick{stroke:#333}"
		 ".axis-title{font-size:13px}.plot-title{font-size:14px;font-weight:bold}"
		 ".fig-title{font-size:16px;font-weight:bold}%s</style>\n"
		 "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		 width, height, width, height, style);
}

void svg_text(struct buf *out, double x, double y, const char *anchor, const char *extra,
	      const char *s, size_t max)
{
	buf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s>", x, y, anchor, extra);
	buf_add_xml(out, s, max);
	buf_adds(out, "</text>\n");
}

void svg_y_axis(const struct svg_area *a, const char *label, double title_dx, struct buf *out)
{
	double ticks[16];
	size_t n = axis_ticks(a->ylo, a->yhi, 6, ticks, ARRAY_SIZE(ticks));
	struct buf t = BUF_INIT;

	for (size_t i = 0; i < n; i++) {
		double y = svg_area_y(a, ticks[i]);

		buf_addf(out,
			 "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
			 a->x0, y, a->x1, y);
		buf_reset(&t);
		axis_num(ticks[i], &t);
		svg_text(out, a->x0 - 6, y + 4, "end", "", buf_str(&t), 12);
	}
	buf_addf(out,
		 "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\" "
		 "class=\"axis-title\">",
		 a->x0 - title_dx, (a->y0 + a->y1) / 2);
	buf_add_xml(out, label, 60);
	buf_adds(out, "</text>\n");
	buf_release(&t);
}
