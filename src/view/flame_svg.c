/*
 * The flame graph as one SVG that works alone: the frames drawn for any
 * viewer, each with a title for viewers without scripts, and
 * web/veles-flame.js inline (as flamegraph.pl's SVGs carry theirs) for
 * zoom, search and tooltips in a browser, whether the SVG is opened as a
 * file or sits inside a page.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/buf.h"
#include "util/human.h"
#include "view/flame_priv.h"
#include "view/view_assets.h"

struct draw {
	const struct flame_style *s;
	double scale; /* pixels per unit of value */
	double total; /* the root's value on the wide side */
	double chg;   /* flame_change_scale() */
	int depth;    /* rows */
	size_t next;  /* index of the next frame drawn */
	struct buf *out;
};

static const char style[] =
	".veles-flame g.f{cursor:pointer}"
	".veles-flame g.f:hover>rect{stroke:#222;stroke-width:.8}"
	".veles-flame g.f>text{pointer-events:none}"
	".veles-flame g.fg-anc>rect{fill-opacity:.5}"
	".veles-flame g.fg-hit>rect{fill:#e03ce0}"
	".veles-flame .fg-btn{cursor:pointer;fill:#1a5fb4;text-decoration:underline}"
	".veles-flame .fg-tip{pointer-events:none}"
	".veles-flame .fg-tip>rect{fill:#fffff4;stroke:#777;fill-opacity:.96}"
	".veles-flame .fg-note{fill:#555}";

void flame_colour(const char *name, bool diff, double b, double t, double scale, char rgb[8])
{
	double k;
	int fade;

	if (!diff) {
		unsigned h = 2166136261u;

		for (const char *s = name; *s; s++)
			h = (h ^ (unsigned char)*s) * 16777619u;
		snprintf(rgb, 8, "#%02x%02x%02x", 205 + h % 50, 80 + (h >> 8) % 130,
			 (h >> 16) % 55);
		return;
	}
	if (b == t || (b <= 0 && t <= 0)) {
		snprintf(rgb, 8, "#e6e6e6");
		return;
	}
	k = b <= 0 || t <= 0 ? 1 : fmin(1, fabs(log2(t / b)) / scale);
	fade = (int)lround(235 - 190 * k);
	if (t > b)
		snprintf(rgb, 8, "#ff%02x%02x", fade, fade);
	else
		snprintf(rgb, 8, "#%02x%02xff", fade, fade);
}

static void max_change(const struct flame_node *n, double *m)
{
	if (n->v[0] > 0 && n->v[1] > 0)
		*m = fmax(*m, fabs(log2(n->v[1] / n->v[0])));
	for (size_t i = 0; i < n->nkids; i++)
		max_change(n->kids[i], m);
}

double flame_change_scale(const struct flame_node *root)
{
	double m = log2(1.1);

	max_change(root, &m);
	return m;
}

static int depth_of(const struct flame_node *n)
{
	int d = 0;

	for (size_t i = 0; i < n->nkids; i++) {
		int k = depth_of(n->kids[i]);

		d = k > d ? k : d;
	}
	return d + 1;
}

/* "NAME\n80.35 ms, 12.3% of all, 45.6% of parent" (both values and the
 * change first for two profiles). */
static void title(const struct draw *d, const struct flame_node *n, double parent)
{
	struct buf *b = d->out;
	double v = n->v[d->s->wide];

	buf_adds(b, "<title>");
	buf_add_xml(b, n->name, 400);
	buf_addc(b, '\n');
	if (d->s->diff) {
		buf_adds(b, "baseline ");
		human_value(b, n->v[0], d->s->unit);
		buf_adds(b, ", target ");
		human_value(b, n->v[1], d->s->unit);
		buf_adds(b, ", ");
		if (n->v[0] > 0)
			human_percent(b, 100 * (n->v[1] / n->v[0] - 1), 1);
		else
			buf_adds(b, n->v[1] > 0 ? "new" : "none");
		if (parent > 0)
			buf_addc(b, '\n');
	} else {
		human_value(b, v, d->s->unit);
		if (parent > 0)
			buf_adds(b, ", ");
	}
	if (parent > 0) {
		human_percent(b, d->total > 0 ? 100 * v / d->total : 0, 0);
		buf_adds(b, " of all, ");
		human_percent(b, 100 * v / parent, 0);
		buf_adds(b, " of parent");
	}
	buf_adds(b, "</title>");
}

/* The frame's own value when a callee is too narrow to draw, for the
 * script, which otherwise takes it from the callees drawn. */
static void self_value(const struct draw *d, const struct flame_node *n, double v)
{
	double whole = v;
	bool dropped = false;

	for (size_t i = 0; i < n->nkids; i++) {
		v -= n->kids[i]->v[d->s->wide];
		dropped = dropped || n->kids[i]->v[d->s->wide] * d->scale < FLAME_MIN_PX;
	}
	if (dropped)
		buf_addf(d->out, " data-s=\"%.10g\"", v > 1e-9 * whole ? v : 0);
}

/* A frame at @x (value from the root's left edge), then its children. */
static void frame(struct draw *d, const struct flame_node *n, long parent, double pv, double x,
		  int level)
{
	struct buf *b = d->out;
	double v = n->v[d->s->wide], w = v * d->scale;
	double px = FLAME_PAD + x * d->scale;
	double y = FLAME_PAD + FLAME_TOP + (double)(d->depth - 1 - level) * FLAME_ROW;
	long me = (long)d->next;
	char rgb[8];

	if (w < FLAME_MIN_PX)
		return;
	d->next++;
	flame_colour(n->name, d->s->diff, n->v[0], n->v[1], d->chg, rgb);
	buf_addf(b, "<g class=\"f\" data-p=\"%ld\" data-x=\"%.10g\" data-v=\"%.10g\"", parent, x,
		 v);
	if (d->s->diff)
		buf_addf(b, " data-b=\"%.10g\" data-t=\"%.10g\"", n->v[0], n->v[1]);
	self_value(d, n, v);
	buf_addc(b, '>');
	title(d, n, pv);
	buf_addf(b,
		 "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\" "
		 "rx=\"2\"/>",
		 px, y, w, FLAME_ROW - 1, rgb);
	if (w > 30) {
		buf_addf(b, "<text x=\"%.2f\" y=\"%.1f\">", px + 3, y + FLAME_ROW - 5);
		buf_add_xml(b, n->name, (size_t)((w - 6) / 7));
		buf_adds(b, "</text>");
	}
	buf_adds(b, "</g>\n");
	for (size_t i = 0; i < n->nkids; i++) {
		frame(d, n->kids[i], me, v, x, level + 1);
		x += n->kids[i]->v[d->s->wide];
	}
}

static void script(struct buf *out)
{
	buf_adds(out, "<script type=\"text/ecmascript\"><![CDATA[\n");
	for (size_t i = 0; i < view_assets_count; i++) {
		const char *s = (const char *)view_assets[i].data, *end = s + view_assets[i].len;

		if (strcmp(view_assets[i].name, "veles-flame.js") != 0)
			continue;
		/* A "]]>" in the script would end the CDATA section: split it. */
		for (const char *at; (at = memmem(s, (size_t)(end - s), "]]>", 3)); s = at + 2) {
			buf_add(out, s, (size_t)(at - s) + 2);
			buf_adds(out, "]]><![CDATA[");
		}
		buf_add(out, s, (size_t)(end - s));
	}
	buf_adds(out, "\n]]></script>\n");
}

void flame_draw(const struct flame_node *root, const struct flame_style *s, struct buf *out)
{
	struct draw d = {.s = s, .total = root->v[s->wide], .out = out};
	double height, inner = FLAME_WIDTH - 2 * FLAME_PAD;

	d.depth = depth_of(root);
	d.scale = d.total > 0 ? inner / d.total : 0;
	d.chg = s->diff ? flame_change_scale(root) : 0;
	/* below the frames: the script's line of matches, then the note */
	height = 2 * FLAME_PAD + FLAME_TOP + d.depth * FLAME_ROW + 36;
	buf_addf(out,
		 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		 "viewBox=\"0 0 %.0f %.0f\" class=\"veles-flame\" data-pad=\"%.0f\" "
		 "data-inner=\"%.0f\" data-diff=\"%d\" data-unit=\"",
		 FLAME_WIDTH, height, FLAME_WIDTH, height, FLAME_PAD, inner, s->diff);
	buf_add_xml(out, s->unit ? s->unit : "", 40);
	buf_adds(out, "\" font-family=\"Verdana, DejaVu Sans, sans-serif\" font-size=\"11\">\n");
	buf_addf(out, "<style>%s</style>\n", style);
	buf_addf(out,
		 "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		 "<text x=\"%.0f\" y=\"24\" font-size=\"15\" text-anchor=\"middle\">",
		 FLAME_WIDTH / 2);
	buf_add_xml(out, s->title, 200);
	buf_adds(out, "</text>\n<g class=\"fg-frames\">\n");
	frame(&d, root, -1, 0, 0, 0);
	buf_addf(out, "</g>\n<text class=\"fg-note\" x=\"%.0f\" y=\"%.0f\">", FLAME_PAD,
		 height - 8);
	if (s->diff) {
		buf_addf(out, "widths: %s; red grew, blue shrank (deepest: ",
			 s->wide ? "target" : "baseline");
		human_percent(out, 100 * (exp2(d.chg) - 1), 1);
		buf_adds(out, " or -");
		human_percent(out, 100 * (1 - exp2(-d.chg)), 0);
		buf_adds(out, " or more)");
	} else {
		buf_adds(out, "widths: ");
		buf_add_xml(out, s->what, 200);
	}
	buf_adds(out, "</text>\n");
	script(out);
	buf_adds(out, "</svg>\n");
}
