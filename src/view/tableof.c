/* tableof resources|models: rows chosen (--filter-by), ordered (--sort-by),
 * columns chosen (--headers), written as plain text, markdown, CSV or JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "view/table_priv.h"
#include "view/view_priv.h"

static void tbl_row(struct tbl *t)
{
	/* Rows of ncols cells each: the capacity counts rows. */
	if (t->nrows == t->cap) {
		t->cap = xgrow_cap(t->cap, t->nrows + 1);
		XRESIZE(t->cells, t->cap * t->ncols);
		XRESIZE(t->nums, t->cap * t->ncols);
	}
	t->nrows++;
}

static void tbl_set(struct tbl *t, size_t col, const char *s, double num)
{
	size_t at = (t->nrows - 1) * t->ncols + col;

	t->cells[at] = s && *s ? xstrdup(s) : NULL;
	t->nums[at] = num;
}

static void tbl_release(struct tbl *t)
{
	size_t i;

	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->nums);
	free(t->names);
}

/* Whether a model names a subtype (only those of a uid with several do). */
static bool models_name_subtypes(const struct profile *p)
{
	struct model_rec *m;
	size_t n;
	bool has = false;

	if (model_recs_read(p->models, 0, &m, &n) < 0)
		return false; /* fill_models() says why */
	for (size_t i = 0; i < n && !has; i++)
		has = m[i].subtype != NULL;
	model_recs_free(m, n);
	return has;
}

/* --headers, or the default columns of the view. */
static void tbl_columns(const struct profile *p, const struct view_opts *o, struct tbl *t)
{
	static const char *const models[] = {"uid",	"model", "method", "r_square",
					     "x_start", "x_end", "coeffs"};
	size_t i;

	t->names = xcalloc(VIEW_MAX_HEADERS + p->res.ncols + 8, sizeof(*t->names));
	if (o->nheaders) {
		for (i = 0; i < o->nheaders; i++)
			t->names[t->ncols++] = o->headers[i];
	} else if (o->kind == VIEW_TABLE_MODELS) {
		for (i = 0; i < ARRAY_SIZE(models); i++) {
			t->names[t->ncols++] = models[i];
			/* Only models of a uid with several subtypes name one. */
			if (i == 0 && models_name_subtypes(p))
				t->names[t->ncols++] = "subtype";
		}
	} else {
		t->names[t->ncols++] = "uid";
		if (table_col(&p->types, "type"))
			t->names[t->ncols++] = "type";
		if (table_col(&p->types, "subtype"))
			t->names[t->ncols++] = "subtype";
		/* A bounds profile's measurements are persistent: its bounds. */
		if (table_col(&p->types, "bound"))
			t->names[t->ncols++] = "bound";
		if (table_col(&p->types, "class"))
			t->names[t->ncols++] = "class";
		for (i = 0; i < p->res.ncols; i++)
			t->names[t->ncols++] = p->res.cols[i].name;
	}
}

static int fill_resources(const struct profile *p, const struct view_opts *o, struct tbl *t)
{
	struct buf s = BUF_INIT;
	size_t i, c, nres = profile_nres(p);

	for (c = 0; c < t->ncols; c++)
		if (!view_has_key(p, t->names[c]))
			return err_set(ERR_NOTFOUND, "the profile has no key '%s'", t->names[c]);
	for (i = 0; i < nres; i++) {
		if (!view_row_matches(p, i, o, &s))
			continue;
		tbl_row(t);
		for (c = 0; c < t->ncols; c++) {
			double num;
			const char *v = view_value(p, i, t->names[c], &s, &num);

			tbl_set(t, c, v, num);
		}
	}
	buf_release(&s);
	return 0;
}

/* A model's member as text (and number); coeffs as "b0=1.5 b1=2". */
static const char *model_cell(const struct model_rec *m, const char *key, struct buf *s,
			      double *num)
{
	const char *strs[] = {m->uid, m->kind, m->method, m->of_key, m->per_key, m->subtype};
	static const char *const snames[] = {"uid",    "model",	  "method",
					     "of_key", "per_key", "subtype"};
	const double nums[] = {m->r_square, m->x_start, m->x_end};
	static const char *const nnames[] = {"r_square", "x_start", "x_end"};
	size_t i;

	*num = NAN;
	buf_reset(s);
	for (i = 0; i < ARRAY_SIZE(snames); i++)
		if (strcmp(key, snames[i]) == 0)
			return strs[i] ? strs[i] : "";
	for (i = 0; i < ARRAY_SIZE(nnames); i++)
		if (strcmp(key, nnames[i]) == 0) {
			*num = nums[i];
			if (!isnan(*num))
				buf_addf(s, "%.6g", *num);
			return buf_str(s);
		}
	if (strcmp(key, "coeffs") == 0)
		for (i = 0; i < m->ncoeffs; i++)
			buf_addf(s, "%s%s=%.6g", i ? " " : "", m->coeff_names[i], m->coeffs[i]);
	return buf_str(s);
}

static bool model_matches(const struct model_rec *m, const struct view_opts *o, struct buf *s)
{
	size_t i;

	for (i = 0; i < o->nfilters; i++) {
		double num;

		if (strcmp(model_cell(m, o->filters[i].key, s, &num), o->filters[i].value) != 0)
			return false;
	}
	return true;
}

static int fill_models(const struct profile *p, const struct view_opts *o, struct tbl *t)
{
	static const char *const known[] = {"uid",	"model",   "method", "of_key", "per_key",
					    "r_square", "x_start", "x_end",  "coeffs", "subtype"};
	struct buf s = BUF_INIT;
	struct model_rec *m;
	size_t nm, i, c, k;
	int ret = model_recs_read(p->models, 0, &m, &nm);

	for (c = 0; ret == 0 && c < t->ncols; c++) {
		for (k = 0; k < ARRAY_SIZE(known) && strcmp(known[k], t->names[c]); k++)
			;
		if (k == ARRAY_SIZE(known))
			ret = err_set(ERR_NOTFOUND, "models have no column '%s'", t->names[c]);
	}
	for (i = 0; ret == 0 && i < nm; i++) {
		if (!model_matches(&m[i], o, &s))
			continue;
		tbl_row(t);
		for (c = 0; c < t->ncols; c++) {
			double num;
			const char *v = model_cell(&m[i], t->names[c], &s, &num);

			tbl_set(t, c, v, num);
		}
	}
	buf_release(&s);
	model_recs_free(m, nm);
	return ret;
}

struct row_sort {
	const struct tbl *t;
	size_t col;
	bool desc;
};

static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct row_sort *o = arg;
	const struct tbl *t = o->t;
	size_t ra = *(const size_t *)a, rb = *(const size_t *)b;
	size_t ia = ra * t->ncols + o->col, ib = rb * t->ncols + o->col;
	double x = t->nums[ia], y = t->nums[ib];
	int r;

	if (!isnan(x) && !isnan(y))
		r = x < y ? -1 : x > y;
	else
		r = strcmp(t->cells[ia] ? t->cells[ia] : "", t->cells[ib] ? t->cells[ib] : "");
	if (o->desc)
		r = -r;
	return r ? r : (ra > rb) - (ra < rb); /* stable */
}

/* The row order: as read, or by --sort-by. */
static int row_order(const struct tbl *t, const struct view_opts *o, size_t **order)
{
	struct row_sort rs = {t, 0, o->sort_desc};

	*order = xcalloc(t->nrows + 1, sizeof(**order));
	for (size_t i = 0; i < t->nrows; i++)
		(*order)[i] = i;
	if (!o->sort_by)
		return 0;
	for (rs.col = 0; rs.col < t->ncols; rs.col++)
		if (strcmp(t->names[rs.col], o->sort_by) == 0)
			break;
	if (rs.col == t->ncols)
		return err_set(ERR_INVALID, "--sort-by %s: not one of the table's columns",
			       o->sort_by);
	qsort_r(*order, t->nrows, sizeof(**order), cmp_rows, &rs);
	return 0;
}

static void csv_cell(const char *s, struct buf *out)
{
	if (!strpbrk(s, ",\"\n\r")) {
		buf_adds(out, s);
		return;
	}
	buf_add_csv(out, s);
}

static void md_cell(const char *s, struct buf *out)
{
	for (; *s; s++) {
		if (*s == '|')
			buf_addc(out, '\\');
		buf_addc(out, *s == '\n' ? ' ' : *s);
	}
}

/* Display width of UTF-8 text: one column per code point. */
size_t tbl_text_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void write_plain(const struct tbl *t, const size_t *order, struct buf *out)
{
	size_t *w = xcalloc(t->ncols, sizeof(*w)), r, c, k;

	for (c = 0; c < t->ncols; c++)
		w[c] = tbl_text_width(t->names[c]);
	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++) {
			const char *s = t->cells[r * t->ncols + c];
			size_t l = s ? tbl_text_width(s) : 0;

			w[c] = l > w[c] ? l : w[c];
		}
	for (c = 0; c < t->ncols; c++)
		buf_addf(out, "%-*s%s", c + 1 < t->ncols ? (int)w[c] : 0, t->names[c],
			 c + 1 < t->ncols ? "  " : "\n");
	for (c = 0; c < t->ncols; c++) {
		for (k = 0; k < w[c]; k++)
			buf_adds(out, "\xe2\x94\x80"); /* ─ */
		buf_adds(out, c + 1 < t->ncols ? "  " : "\n");
	}
	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++) {
			size_t at = order[r] * t->ncols + c;
			const char *s = t->cells[at] ? t->cells[at] : "";
			size_t pad = w[c] - tbl_text_width(s);
			bool right = !isnan(t->nums[at]);

			if (right)
				buf_addf(out, "%*s", (int)pad, "");
			buf_adds(out, s);
			if (!right && c + 1 < t->ncols)
				buf_addf(out, "%*s", (int)pad, "");
			buf_adds(out, c + 1 < t->ncols ? "  " : "\n");
		}
	free(w);
}

static void write_sep_table(const struct tbl *t, const size_t *order, bool md, struct buf *out)
{
	size_t r, c;

	for (c = 0; c < t->ncols; c++) {
		buf_adds(out, md ? (c ? " | " : "| ") : (c ? "," : ""));
		(md ? md_cell : csv_cell)(t->names[c], out);
	}
	buf_adds(out, md ? " |\n" : "\n");
	for (c = 0; md && c < t->ncols; c++)
		buf_adds(out, c + 1 < t->ncols ? "|---" : "|---|\n");
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			const char *s = t->cells[order[r] * t->ncols + c];

			buf_adds(out, md ? (c ? " | " : "| ") : (c ? "," : ""));
			(md ? md_cell : csv_cell)(s ? s : "", out);
		}
		buf_adds(out, md ? " |\n" : "\n");
	}
}

/* The shortest text that reads back as the same double. */
static void json_num(double v, struct buf *out)
{
	char tmp[32];
	int prec;

	for (prec = 15; prec < 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	buf_addf(out, "%.*g", prec, v);
}

static void write_json(const struct tbl *t, const size_t *order, struct buf *out)
{
	size_t r, c;

	buf_adds(out, "[");
	for (r = 0; r < t->nrows; r++) {
		buf_adds(out, r ? ",\n {" : "\n {");
		for (c = 0; c < t->ncols; c++) {
			size_t at = order[r] * t->ncols + c;

			buf_adds(out, c ? ", " : "");
			buf_add_json_str(out, t->names[c], strlen(t->names[c]));
			buf_adds(out, ": ");
			if (!isnan(t->nums[at]) && isfinite(t->nums[at]))
				json_num(t->nums[at], out);
			else if (t->cells[at])
				buf_add_json_str(out, t->cells[at], strlen(t->cells[at]));
			else
				buf_adds(out, "null");
		}
		buf_adds(out, "}");
	}
	buf_adds(out, t->nrows ? "\n]\n" : "]\n");
}

int tableof_render(const struct profile *p, const struct view_opts *o, enum view_target target,
		   struct buf *out)
{
	struct tbl t = {0}, shown;
	size_t *order = NULL;
	int ret;

	tbl_columns(p, o, &t);
	ret = o->kind == VIEW_TABLE_MODELS ? fill_models(p, o, &t) : fill_resources(p, o, &t);
	if (ret == 0)
		ret = row_order(&t, o, &order);
	/* --limit: the first rows of the order; the writers read no further. */
	shown = t;
	if (o->limit && o->limit < shown.nrows)
		shown.nrows = o->limit;
	if (ret == 0 && target != TARGET_TERM)
		table_page(&shown, order, o, target == TARGET_SVG, out);
	else if (ret == 0 && o->tfmt == TFMT_JSON)
		write_json(&shown, order, out);
	else if (ret == 0 && o->tfmt == TFMT_PLAIN)
		write_plain(&shown, order, out);
	else if (ret == 0)
		write_sep_table(&shown, order, o->tfmt == TFMT_MARKDOWN, out);
	free(order);
	tbl_release(&t);
	return ret;
}
