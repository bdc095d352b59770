/* The HTML rendering: one self-contained page, the chart library and our
 * glue inline, the figure as JSON that the glue draws (zoom, pan, hover). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/buf.h"
#include "util/common.h"
#include "view/view_assets.h"
#include "view/view_priv.h"

/* A JSON string safe inside <script>: no "</" can close the element. */
static void jstr(const char *s, struct buf *out)
{
	buf_addc(out, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			buf_addf(out, "\\%c", c);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&')
			buf_addf(out, "\\u%04x", c);
		else
			buf_addc(out, (char)c);
	}
	buf_addc(out, '"');
}

static void jnums(const double *v, size_t n, struct buf *out)
{
	size_t i;

	buf_addc(out, '[');
	for (i = 0; i < n; i++) {
		if (i)
			buf_addc(out, ',');
		if (isfinite(v[i]))
			buf_addf(out, "%.10g", v[i]);
		else
			buf_adds(out, "null");
	}
	buf_addc(out, ']');
}

static void plot_json(const struct vplot *pl, struct buf *out)
{
	size_t i;

	buf_adds(out, "{\"title\":");
	jstr(pl->title ? pl->title : "", out);
	buf_adds(out, ",\"xlabel\":");
	jstr(pl->xlabel, out);
	buf_adds(out, ",\"ylabel\":");
	jstr(pl->ylabel, out);
	buf_adds(out, ",\"x\":");
	jnums(pl->x, pl->nx, out);
	buf_adds(out, ",\"xcat\":");
	for (i = 0; pl->xcat && i < pl->nx; i++) {
		buf_adds(out, i ? "," : "[");
		jstr(pl->xcat[i], out);
	}
	buf_adds(out, pl->xcat ? (pl->nx ? "]" : "[]") : "null");
	buf_adds(out, ",\"series\":[");
	for (i = 0; i < pl->ns; i++) {
		buf_adds(out, i ? ",{\"label\":" : "{\"label\":");
		jstr(pl->s[i].label, out);
		buf_adds(out, ",\"y\":");
		jnums(pl->s[i].y, pl->nx, out);
		buf_adds(out, "}");
	}
	buf_adds(out, "],\"points\":{\"x\":");
	jnums(pl->px, pl->npts, out);
	buf_adds(out, ",\"y\":");
	jnums(pl->py, pl->npts, out);
	buf_adds(out, "},\"curves\":[");
	for (i = 0; i < pl->ncurves; i++) {
		buf_adds(out, i ? ",{\"label\":" : "{\"label\":");
		jstr(pl->curves[i].label, out);
		buf_adds(out, ",\"x\":");
		jnums(pl->curves[i].x, pl->curves[i].n, out);
		buf_adds(out, ",\"y\":");
		jnums(pl->curves[i].y, pl->curves[i].n, out);
		buf_adds(out, "}");
	}
	buf_adds(out, "]}");
}

static void figure_json(const struct vfigure *f, struct buf *out)
{
	static const char *const kinds[] = {"bars", "flow", "scatter"};
	size_t i;

	buf_addf(out, "{\"kind\":\"%s\",\"stacked\":%s,\"palette\":[", kinds[f->kind],
		 f->stacked ? "true" : "false");
	for (i = 0; i < view_palette_len; i++)
		buf_addf(out, "%s\"%s\"", i ? "," : "", view_palette[i]);
	buf_adds(out, "],\"title\":");
	jstr(f->title, out);
	buf_adds(out, ",\"plots\":[");
	for (i = 0; i < f->n; i++) {
		if (i)
			buf_addc(out, ',');
		plot_json(&f->plots[i], out);
	}
	buf_adds(out, "]}");
}

static void asset(const char *name, struct buf *out)
{
	size_t i;

	for (i = 0; i < view_assets_count; i++)
		if (strcmp(view_assets[i].name, name) == 0)
			buf_add(out, view_assets[i].data, view_assets[i].len);
}

static void html_text(const char *s, struct buf *out)
{
	for (; *s; s++) {
		if (*s == '<')
			buf_adds(out, "&lt;");
		else if (*s == '&')
			buf_adds(out, "&amp;");
		else
			buf_addc(out, *s);
	}
}

void html_script_json(const char *json, size_t len, struct buf *out)
{
	/* Outside strings JSON has no '<', '>' or '&': escaping them
	 * everywhere keeps "</script>" in a commit subject from closing the
	 * element, and changes no value. */
	for (size_t i = 0; i < len; i++) {
		char c = json[i];

		if (c == '<' || c == '>' || c == '&')
			buf_addf(out, "\\u%04x", (unsigned char)c);
		else
			buf_addc(out, c);
	}
}

void html_page(const char *title, const char *help, const char *var, const struct buf *json,
	       const char *script, struct buf *out)
{
	buf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		      "<meta name=\"viewport\" content=\"width=device-width\">\n<title>");
	html_text(title, out);
	buf_adds(out, "</title>\n<style>\n");
	asset("uPlot.min.css", out);
	buf_adds(out, "\n");
	asset("veles-view.css", out);
	buf_adds(out, "</style>\n</head>\n<body>\n<h1>");
	html_text(title, out);
	buf_adds(out, "</h1>\n<p class=\"help\">");
	html_text(help, out);
	buf_adds(out, "</p>\n<div id=\"charts\"></div>\n<script>\n");
	asset("uPlot.iife.min.js", out);
	buf_addf(out, "\n</script>\n<script>\nconst %s = ", var);
	html_script_json(json->data, json->len, out);
	buf_adds(out, ";\n</script>\n<script>\n");
	asset("veles-chart.js", out);
	buf_adds(out, "\n</script>\n<script>\n");
	asset(script, out);
	buf_adds(out, "\n</script>\n</body>\n</html>\n");
}

void html_render(const struct vfigure *f, const struct view_opts *o, struct buf *out)
{
	struct buf json = BUF_INIT;

	figure_json(f, &json);
	html_page(f->title,
		  "Drag to zoom in, wheel to zoom, Shift+drag to pan, double-click to reset. "
		  "Hover for values.",
		  "VELES_FIGURE", &json, "veles-view.js", out);
	buf_release(&json);
	UNUSED(o);
}
