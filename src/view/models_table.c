/*
 * A profile's models as `show summary` prints them: one row per model,
 * model, uid, coefficients, r² and x range, in columns; the JSON stays in
 * `show --verbose`, `show --format json` and `tableof models`.
 */
#include <math.h>
#include <string.h>

#include "util/buf.h"
#include "util/common.h"
#include "view/view.h"
#include "view/view_priv.h"

enum { MT_MODEL, MT_UID, MT_COEFFS, MT_R2, MT_RANGE, MT_COLS };

static void num(struct buf *b, double v)
{
	if (isnan(v))
		buf_adds(b, "-");
	else
		buf_addf(b, "%.6g", v);
}

/* The cells of model @m, each NUL-terminated in @cells (a row). */
static void row(const struct model_rec *m, struct buf cells[MT_COLS])
{
	for (int c = 0; c < MT_COLS; c++)
		buf_reset(&cells[c]);
	buf_adds(&cells[MT_MODEL], m->kind ? m->kind : "?");
	buf_adds(&cells[MT_UID], m->uid ? m->uid : "?");
	if (m->subtype)
		buf_addf(&cells[MT_UID], " [%s]", m->subtype);
	for (size_t i = 0; i < m->ncoeffs; i++) {
		buf_addf(&cells[MT_COEFFS], "%s%s=", i ? " " : "", m->coeff_names[i]);
		num(&cells[MT_COEFFS], m->coeffs[i]);
	}
	/* A smoothing model is its points, not a formula. */
	if (!m->ncoeffs)
		buf_addf(&cells[MT_COEFFS], "(%zu point%s)", m->n, m->n == 1 ? "" : "s");
	num(&cells[MT_R2], m->r_square);
	num(&cells[MT_RANGE], m->x_start);
	buf_adds(&cells[MT_RANGE], " .. ");
	num(&cells[MT_RANGE], m->x_end);
}

/* Display width of UTF-8 text: "r²" is two columns, not three bytes. */
static int width(const char *s)
{
	int w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void line(struct buf *out, struct buf cells[MT_COLS], const int w[MT_COLS])
{
	for (int c = 0; c < MT_COLS; c++) {
		const char *s = buf_str(&cells[c]);
		bool right = c == MT_R2;
		int pad = w[c] - width(s);

		if (right)
			buf_addf(out, "%*s", pad, "");
		buf_adds(out, s);
		if (c + 1 < MT_COLS)
			buf_addf(out, "%*s", right ? 2 : pad + 2, "");
	}
	buf_addc(out, '\n');
}

int view_models_table(const char *models, struct buf *out, size_t *count)
{
	static const char *const heads[MT_COLS] = {"model", "uid", "coefficients", "r²", "x range"};
	struct buf cells[MT_COLS];
	struct model_rec *m;
	size_t n;
	int w[MT_COLS], ret = model_recs_read(models, 0, &m, &n);

	*count = 0;
	if (ret < 0)
		return ret;
	for (int c = 0; c < MT_COLS; c++) {
		cells[c] = (struct buf)BUF_INIT;
		w[c] = width(heads[c]);
	}
	for (size_t i = 0; i < n; i++) {
		row(&m[i], cells);
		for (int c = 0; c < MT_COLS; c++)
			if (width(buf_str(&cells[c])) > w[c])
				w[c] = width(buf_str(&cells[c]));
	}
	for (int c = 0; c < MT_COLS; c++) {
		buf_reset(&cells[c]);
		buf_adds(&cells[c], heads[c]);
	}
	line(out, cells, w);
	for (size_t i = 0; i < n; i++) {
		row(&m[i], cells);
		line(out, cells, w);
	}
	for (int c = 0; c < MT_COLS; c++)
		buf_release(&cells[c]);
	model_recs_free(m, n);
	*count = n;
	return 0;
}
