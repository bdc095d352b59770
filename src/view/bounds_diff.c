/*
 * veles diff BASE TARGET on bounds profiles: one row per loop and function
 * (paired as check pairs them, bound_items.h), with the bound and class on
 * each side and what changed: the class rose or fell, the bound grew or
 * shrank (same class, compared at a large input), or nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/bound_expr.h"
#include "analyze/bound_items.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "view/bounds_diff.h"

enum change { CH_CLASS_UP, CH_UP, CH_NEW, CH_GONE, CH_DOWN, CH_CLASS_DOWN, CH_SAME };

static const char *const change_names[] = {"class up", "grew",	     "new", "gone",
					   "shrank",   "class down", "same"};

struct row {
	const struct bound_item *a, *b;
	enum change ch;
};

bool diff_is_bounds(struct profile *const p[2])
{
	for (int i = 0; i < 2; i++)
		if (!p[i]->type || strcmp(p[i]->type, "bound") != 0)
			return false;
	return true;
}

static enum change classify(const struct bound_item *a, const struct bound_item *b)
{
	struct bclass ca, cb;
	double x, y;
	int c;

	if (!a)
		return CH_NEW;
	if (!b)
		return CH_GONE;
	if (a->cls && b->cls && bclass_parse(a->cls, &ca) && bclass_parse(b->cls, &cb) &&
	    (c = bclass_cmp(cb, ca)) != 0)
		return c > 0 ? CH_CLASS_UP : CH_CLASS_DOWN;
	if (strcmp(a->bound, b->bound) == 0)
		return CH_SAME;
	x = bexpr_at_probe(a->bound);
	y = bexpr_at_probe(b->bound);
	return y > x ? CH_UP : y < x ? CH_DOWN : CH_SAME;
}

static int row_cmp(const void *x, const void *y)
{
	const struct row *a = x, *b = y;
	const struct bound_item *p = a->b ? a->b : a->a, *q = b->b ? b->b : b->a;

	if (a->ch != b->ch)
		return a->ch < b->ch ? -1 : 1;
	return strcmp(p->location, q->location);
}

static void cell(struct buf *out, const struct bound_item *it)
{
	if (it)
		buf_addf(out, "%s  %s", it->bound, it->cls ? it->cls : "");
	else
		buf_adds(out, "-");
}

/* Columns in the terminal: UTF-8 continuation bytes take none. */
static int columns(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void pad(struct buf *b, const char *s, int width)
{
	buf_adds(b, s);
	for (int k = columns(s); k < width; k++)
		buf_addc(b, ' ');
}

static void print_text(const struct row *r, size_t n, const char *const names[2], struct buf *b)
{
	int w[3] = {8, 8, 6};
	struct buf t = BUF_INIT;

	for (size_t i = 0; i < n; i++) {
		const struct bound_item *it = r[i].b ? r[i].b : r[i].a;

		w[0] = columns(it->location) > w[0] ? columns(it->location) : w[0];
		for (int k = 1; k < 3; k++) {
			buf_reset(&t);
			cell(&t, k == 1 ? r[i].a : r[i].b);
			w[k] = columns(buf_str(&t)) > w[k] ? columns(buf_str(&t)) : w[k];
		}
	}
	pad(b, "location", w[0] + 2);
	pad(b, "baseline", w[1] + 2);
	pad(b, "target", w[2] + 2);
	buf_adds(b, "change\n");
	for (size_t i = 0; i < n; i++) {
		const struct bound_item *it = r[i].b ? r[i].b : r[i].a;

		pad(b, it->location, w[0] + 2);
		buf_reset(&t);
		cell(&t, r[i].a);
		pad(b, buf_str(&t), w[1] + 2);
		buf_reset(&t);
		cell(&t, r[i].b);
		pad(b, buf_str(&t), w[2] + 2);
		buf_addf(b, "%s\n", change_names[r[i].ch]);
	}
	buf_addf(b, "(%s -> %s)\n", names[0], names[1]);
	buf_release(&t);
}

static void json_side(struct buf *b, const char *key, const struct bound_item *it)
{
	buf_addf(b, ",\"%s\":", key);
	if (!it) {
		buf_adds(b, "null");
		return;
	}
	buf_adds(b, "{\"bound\":");
	buf_add_json_str(b, it->bound, strlen(it->bound));
	buf_adds(b, ",\"class\":");
	if (it->cls)
		buf_add_json_str(b, it->cls, strlen(it->cls));
	else
		buf_adds(b, "null");
	buf_addc(b, '}');
}

static void print_other(const struct row *r, size_t n, int fmt, struct buf *b)
{
	if (fmt == 1)
		buf_addc(b, '[');
	else if (fmt == 2)
		buf_adds(b, "location,baseline,baseline_class,target,target_class,change\n");
	else
		buf_adds(b, "| location | baseline | target | change |\n|---|---|---|---|\n");
	for (size_t i = 0; i < n; i++) {
		const struct bound_item *it = r[i].b ? r[i].b : r[i].a;
		const struct bound_item *side[2] = {r[i].a, r[i].b};

		if (fmt == 1) {
			buf_adds(b, i ? ",\n{\"location\":" : "\n{\"location\":");
			buf_add_json_str(b, it->location, strlen(it->location));
			json_side(b, "baseline", r[i].a);
			json_side(b, "target", r[i].b);
			buf_addf(b, ",\"change\":\"%s\"}", change_names[r[i].ch]);
		} else if (fmt == 2) {
			buf_add_csv(b, it->location);
			for (int s = 0; s < 2; s++) {
				buf_addc(b, ',');
				buf_add_csv(b, side[s] ? side[s]->bound : "");
				buf_addc(b, ',');
				buf_add_csv(b, side[s] && side[s]->cls ? side[s]->cls : "");
			}
			buf_addf(b, ",%s\n", change_names[r[i].ch]);
		} else {
			struct buf t = BUF_INIT;

			buf_addf(b, "| %s | ", it->location);
			cell(&t, r[i].a);
			buf_addf(b, "%s | ", buf_str(&t));
			buf_reset(&t);
			cell(&t, r[i].b);
			buf_addf(b, "%s | %s |\n", buf_str(&t), change_names[r[i].ch]);
			buf_release(&t);
		}
	}
	if (fmt == 1)
		buf_adds(b, "\n]\n");
}

void diff_bounds_render(struct buf *out, struct profile *const p[2], const char *const names[2],
			int fmt, unsigned long top)
{
	struct bound_item *a, *b;
	struct bound_pair *pairs;
	struct row *rows;
	size_t na, nb, n;

	bound_items(p[0], &a, &na);
	bound_items(p[1], &b, &nb);
	n = bound_pairs(a, na, b, nb, &pairs);
	rows = xcalloc(n + 1, sizeof(*rows));
	for (size_t i = 0; i < n; i++)
		rows[i] = (struct row){pairs[i].base, pairs[i].target,
				       classify(pairs[i].base, pairs[i].target)};
	qsort(rows, n, sizeof(*rows), row_cmp);
	if (top && n > top)
		n = top;
	if (fmt == 0)
		print_text(rows, n, names, out);
	else
		print_other(rows, n, fmt, out);
	free(rows);
	free(pairs);
	bound_items_free(a, na);
	bound_items_free(b, nb);
}
