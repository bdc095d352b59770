/*
 * The bounds view (bounds_view.h). Each function is shown from its name to
 * the end of its last loop; the annotation of a line is its loops' bounds
 * (a loop's uid gives its first line) or, on the function's line, the
 * total (whose uid line Perun counts from 0).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/bound_expr.h"
#include "analyze/bound_items.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "view/bounds_view.h"

#define TAB 8

struct lines {
	char **v;
	int n;
};

static void split_lines(const struct buf *text, struct lines *l)
{
	const char *s = buf_str(text), *end = s + text->len;

	l->v = NULL;
	l->n = 0;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);

		l->v = xrealloc(l->v, (size_t)(l->n + 1) * sizeof(*l->v));
		l->v[l->n++] = xstrndup(s, len);
		s += len + 1;
	}
}

static void free_lines(struct lines *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

/* The line with tabs expanded, at most @width columns ("…" when cut);
 * returns the columns it takes. */
static int add_source(struct buf *b, const char *s, int width)
{
	int col = 0;

	for (; *s; s++) {
		if (col >= width - 1 && s[1]) {
			buf_adds(b, "…");
			return col + 1;
		}
		if (*s == '\t') {
			do
				buf_addc(b, ' ');
			while (++col % TAB && col < width);
		} else {
			buf_addc(b, *s);
			col += ((unsigned char)*s & 0xc0) != 0x80;
		}
	}
	return col;
}

static int line_width(const char *s)
{
	int col = 0;

	for (; *s; s++)
		col = *s == '\t' ? (col / TAB + 1) * TAB
				 : col + (((unsigned char)*s & 0xc0) != 0x80);
	return col;
}

static const char *class_color(const char *cls)
{
	struct bclass c;

	if (!cls || !bclass_parse(cls, &c))
		return "";
	if (c.inf)
		return "\033[1;31m";
	if (c.deg >= 2)
		return "\033[33m";
	return c.deg == 0 ? "\033[32m" : "";
}

static void annotate(struct buf *b, const struct bound_item *it, bool color)
{
	const char *on = color ? class_color(it->cls) : "";

	buf_addf(b, "  ◂ %s%s%s%s  %s", it->total ? "total " : "", on, it->cls ? it->cls : "?",
		 *on ? "\033[0m" : "", it->bound);
	if (it->reason)
		buf_addf(b, ": %s", it->reason);
}

/* The first line each item annotates: a loop's own, a total's plus one. */
static int item_line(const struct bound_item *it)
{
	return it->total ? it->line + 1 : it->line;
}

/* One file: its functions' regions, each line with its bounds. */
static void render_file(const struct bound_item *v, size_t n, const struct lines *src,
			const struct bounds_view_opts *o, struct buf *b)
{
	bool *show = xcalloc((size_t)src->n + 2, sizeof(*show));
	int srcw = 20, last = 0;

	/* A function from its line to the end of its last loop. */
	for (size_t i = 0; i < n; i++) {
		int from = item_line(&v[i]), to = v[i].total ? from : v[i].column;

		for (size_t k = 0; v[i].total && k < n; k++)
			if (!v[k].total && strcmp(v[k].function, v[i].function) == 0 &&
			    v[k].column > to)
				to = v[k].column;
		for (int l = from; l <= to + (v[i].total ? 1 : 0) && l <= src->n; l++)
			if (l >= 1)
				show[l] = true;
	}
	for (int l = 1; l <= src->n; l++)
		if (show[l] && line_width(src->v[l - 1]) > srcw)
			srcw = line_width(src->v[l - 1]);
	if (srcw > o->width - 40)
		srcw = o->width - 40 > 30 ? o->width - 40 : 30;
	for (int l = 1; l <= src->n; l++) {
		int w;

		if (!show[l])
			continue;
		if (last && l > last + 1)
			buf_adds(b, "      ⋮\n");
		last = l;
		buf_addf(b, "%5d │ ", l);
		w = add_source(b, src->v[l - 1], srcw);
		/* Each bound of the line beside it, a further one on a line of
		 * its own below. */
		for (size_t i = 0, k = 0; i < n; i++) {
			if (item_line(&v[i]) != l)
				continue;
			if (k++)
				buf_adds(b, "\n      │ ");
			for (; w < srcw; w++)
				buf_addc(b, ' ');
			annotate(b, &v[i], o->color);
			w = 0;
		}
		buf_addc(b, '\n');
	}
	free(show);
}

/* Without the source: the bounds by line. */
static void render_list(const struct bound_item *v, size_t n, const struct bounds_view_opts *o,
			struct buf *b)
{
	const struct bound_item **by = xmalloc((n + 1) * sizeof(*by));

	for (size_t i = 0; i < n; i++)
		by[i] = &v[i];
	/* Insertion by line: a file has a few loops. */
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k > 0 && item_line(by[k - 1]) > item_line(by[k]); k--) {
			const struct bound_item *t = by[k];

			by[k] = by[k - 1];
			by[k - 1] = t;
		}
	for (size_t j = 0; j < n; j++) {
		const struct bound_item *it = by[j];

		buf_addf(b, "%5d   %s%s", item_line(it), it->total ? "" : "  ", it->function);
		annotate(b, it, o->color);
		buf_addc(b, '\n');
	}
	free(by);
}

int view_bounds(const struct profile *p, const struct bounds_view_opts *o, struct buf *out)
{
	struct bound_item *v;
	size_t n, i = 0;

	bound_items(p, &v, &n);
	if (n == 0) {
		bound_items_free(v, n);
		return err_set(ERR_INVALID, "the bounds view needs a bounds profile "
					    "(veles collect bounds)");
	}
	while (i < n) {
		size_t j = i;
		struct buf text = BUF_INIT;
		struct lines src;

		while (j < n && strcmp(v[j].source, v[i].source) == 0)
			j++;
		buf_addf(out, "%s%s%s\n", o->color ? "\033[1m" : "", v[i].source,
			 o->color ? "\033[0m" : "");
		if (o->read && o->read(v[i].source, &text, o->arg) == 0) {
			split_lines(&text, &src);
			render_file(v + i, j - i, &src, o, out);
			free_lines(&src);
		} else {
			err_clear();
			buf_adds(out, "  (source not found: the bounds alone)\n");
			render_list(v + i, j - i, o, out);
		}
		buf_release(&text);
		i = j;
		if (i < n)
			buf_addc(out, '\n');
	}
	bound_items_free(v, n);
	return 0;
}
