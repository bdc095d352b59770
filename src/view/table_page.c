/*
 * tableof as a page: a standalone SVG of the rows (text on a grid, zebra
 * stripes, numbers right-aligned), or one self-contained HTML file with a
 * table whose columns sort on a click and whose rows filter as one types.
 * Nothing is fetched when either is opened.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/common.h"
#include "view/table_priv.h"
#include "view/view.h"

/* An SVG row is 20 px; a character of the monospace font about 7.8 px. */
#define ROW_H 20
#define CHAR_W 7.8
#define PAD 12

static const char *cell(const struct tbl *t, size_t row, size_t col, bool *num)
{
	size_t at = row * t->ncols + col;

	*num = !isnan(t->nums[at]);
	return t->cells[at] ? t->cells[at] : "";
}

/* Each column's width in characters: its widest cell or name. */
static size_t *column_widths(const struct tbl *t)
{
	size_t *w = xcalloc(t->ncols ? t->ncols : 1, sizeof(*w));
	bool num;

	for (size_t c = 0; c < t->ncols; c++) {
		w[c] = tbl_text_width(t->names[c]);
		for (size_t r = 0; r < t->nrows; r++) {
			size_t l = tbl_text_width(cell(t, r, c, &num));

			w[c] = l > w[c] ? l : w[c];
		}
	}
	return w;
}

static void svg_row(struct buf *out, const struct tbl *t, const size_t *w, size_t row, double y,
		    bool head)
{
	double x = PAD;
	bool num = false;

	for (size_t c = 0; c < t->ncols; c++) {
		const char *s = head ? t->names[c] : cell(t, row, c, &num);
		double at = num ? x + (double)w[c] * CHAR_W : x;

		buf_addf(out, "<text x=\"%.1f\" y=\"%.1f\"%s%s>", at, y,
			 num ? " text-anchor=\"end\"" : "", head ? " font-weight=\"bold\"" : "");
		buf_add_xml(out, s, SIZE_MAX);
		buf_adds(out, "</text>\n");
		x += (double)w[c] * CHAR_W + 2 * PAD;
	}
}

static void write_svg(const struct tbl *t, const size_t *order, const struct view_opts *o,
		      struct buf *out)
{
	size_t *w = column_widths(t);
	double width = PAD, top = o->title ? 2 * ROW_H : 0;
	double height;

	for (size_t c = 0; c < t->ncols; c++)
		width += (double)w[c] * CHAR_W + 2 * PAD;
	height = top + (double)(t->nrows + 1) * ROW_H + PAD;
	buf_addf(out,
		 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		 "viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans Mono, monospace\" "
		 "font-size=\"13\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		 width, height, width, height);
	if (o->title) {
		buf_addf(out, "<text x=\"%d\" y=\"%d\" font-size=\"16\" font-weight=\"bold\">", PAD,
			 ROW_H + 4);
		buf_add_xml(out, o->title, SIZE_MAX);
		buf_adds(out, "</text>\n");
	}
	buf_addf(out, "<rect x=\"0\" y=\"%.0f\" width=\"%.0f\" height=\"%d\" fill=\"#dde4ee\"/>\n",
		 top + 4, width, ROW_H);
	svg_row(out, t, w, 0, top + ROW_H, true);
	for (size_t r = 0; r < t->nrows; r++) {
		double y = top + (double)(r + 2) * ROW_H;

		if (r % 2)
			buf_addf(out,
				 "<rect x=\"0\" y=\"%.0f\" width=\"%.0f\" height=\"%d\" "
				 "fill=\"#f3f5f8\"/>\n",
				 y - ROW_H + 4, width, ROW_H);
		svg_row(out, t, w, order[r], y, false);
	}
	buf_adds(out, "</svg>\n");
	free(w);
}

/* Sorting and filtering, ours: small enough to need no library. */
static const char table_script[] =
	"(function(){var t=document.querySelector('table.veles-table'),b=t.tBodies[0],"
	"rows=Array.prototype.slice.call(b.rows),dir={};"
	"function key(r,c){var d=r.cells[c];return d.dataset.num!==undefined?"
	"parseFloat(d.dataset.num):d.textContent;}"
	"Array.prototype.forEach.call(t.tHead.rows[0].cells,function(th,c){"
	"th.addEventListener('click',function(){dir[c]=-(dir[c]||-1);"
	"rows.sort(function(a,b){var x=key(a,c),y=key(b,c);"
	"return (x<y?-1:x>y?1:0)*dir[c];});"
	"rows.forEach(function(r){b.appendChild(r);});"
	"Array.prototype.forEach.call(t.tHead.rows[0].cells,function(h){h.className='';});"
	"th.className=dir[c]>0?'asc':'desc';});});"
	"document.getElementById('filter').addEventListener('input',function(e){"
	"var q=e.target.value.toLowerCase();rows.forEach(function(r){"
	"r.style.display=r.textContent.toLowerCase().indexOf(q)<0?'none':'';});});"
	"window.velesTable=t;})();";

static const char table_style[] =
	"body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}"
	"table{border-collapse:collapse;font-family:monospace}"
	"th,td{padding:3px 12px;border-bottom:1px solid #e3e7ee;text-align:left}"
	"td.n{text-align:right}th{background:#dde4ee;cursor:pointer;user-select:none}"
	"th.asc:after{content:' \\25B2'}th.desc:after{content:' \\25BC'}"
	"tbody tr:nth-child(even){background:#f3f5f8}#filter{margin:0 0 1em;padding:4px;"
	"width:20em}";

static void write_html(const struct tbl *t, const size_t *order, const struct view_opts *o,
		       struct buf *out)
{
	bool num;

	buf_adds(out, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>");
	buf_add_xml(out, o->title ? o->title : "veles tableof", SIZE_MAX);
	buf_addf(out, "</title><style>%s</style></head><body>\n", table_style);
	if (o->title) {
		buf_adds(out, "<h1>");
		buf_add_xml(out, o->title, SIZE_MAX);
		buf_adds(out, "</h1>\n");
	}
	buf_addf(out,
		 "<input id=\"filter\" placeholder=\"filter %zu rows\">\n"
		 "<table class=\"veles-table\"><thead><tr>",
		 t->nrows);
	for (size_t c = 0; c < t->ncols; c++) {
		buf_adds(out, "<th>");
		buf_add_xml(out, t->names[c], SIZE_MAX);
		buf_adds(out, "</th>");
	}
	buf_adds(out, "</tr></thead>\n<tbody>\n");
	for (size_t r = 0; r < t->nrows; r++) {
		buf_adds(out, "<tr>");
		for (size_t c = 0; c < t->ncols; c++) {
			const char *s = cell(t, order[r], c, &num);

			if (num)
				buf_addf(out, "<td class=\"n\" data-num=\"%.17g\">",
					 t->nums[order[r] * t->ncols + c]);
			else
				buf_adds(out, "<td>");
			buf_add_xml(out, s, SIZE_MAX);
			buf_adds(out, "</td>");
		}
		buf_adds(out, "</tr>\n");
	}
	buf_addf(out, "</tbody></table>\n<script>%s</script>\n</body></html>\n", table_script);
}

void table_page(const struct tbl *t, const size_t *order, const struct view_opts *o, bool svg,
		struct buf *out)
{
	if (svg)
		write_svg(t, order, o, out);
	else
		write_html(t, order, o, out);
}
