/* `veles diff`'s table (diff_rows.h). */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "profile/numfmt.h"
#include "util/buf.h"
#include "view/diff_rows.h"

static void add_num(struct buf *b, double v, const char *none)
{
	if (isnan(v))
		buf_adds(b, none);
	else
		buf_addf(b, "%.6g", v);
}

/* JSON and CSV are read by programs: every digit that reads back the same. */
static void add_exact(struct buf *b, double v, const char *none)
{
	char num[NUMFMT_MAX];

	if (isnan(v))
		buf_adds(b, none);
	else
		buf_add(b, num, numfmt_num(num, v));
}

static void add_rel(struct buf *b, double rel, const char *none)
{
	if (isnan(rel))
		buf_adds(b, none);
	else
		buf_addf(b, "%+.1f%%", 100 * rel);
}

static void json_row(struct buf *b, const struct diff_row *r, bool first)
{
	buf_adds(b, first ? "\n{\"name\":" : ",\n{\"name\":");
	buf_add_json_str(b, r->name, strlen(r->name));
	buf_adds(b, ",\"baseline\":");
	add_exact(b, r->base, "null");
	buf_adds(b, ",\"target\":");
	add_exact(b, r->target, "null");
	buf_adds(b, ",\"rel_change\":");
	add_exact(b, r->rel, "null");
	buf_addc(b, '}');
}

static void csv_row(struct buf *b, const struct diff_row *r)
{
	buf_add_csv(b, r->name);
	buf_addc(b, ',');
	add_exact(b, r->base, "");
	buf_addc(b, ',');
	add_exact(b, r->target, "");
	buf_addc(b, ',');
	add_exact(b, r->rel, "");
	buf_addc(b, '\n');
}

static void markdown_row(struct buf *b, const struct diff_row *r)
{
	buf_adds(b, "| ");
	for (const char *s = r->name; *s; s++)
		buf_adds(b, *s == '|' ? "\\|" : (char[2]){*s, 0});
	buf_adds(b, " | ");
	add_num(b, r->base, "–");
	buf_adds(b, " | ");
	add_num(b, r->target, "–");
	buf_adds(b, " | ");
	add_rel(b, r->rel, "–");
	buf_adds(b, " |\n");
}

static void text_row(struct buf *b, const struct diff_row *r, size_t w)
{
	struct buf cell = BUF_INIT;

	buf_addf(b, "%-*s ", (int)w, r->name);
	add_num(&cell, r->base, "-");
	buf_addf(b, "%14s ", buf_str(&cell));
	buf_reset(&cell);
	add_num(&cell, r->target, "-");
	buf_addf(b, "%14s ", buf_str(&cell));
	buf_reset(&cell);
	add_rel(&cell, r->rel, isnan(r->base) ? "new" : isnan(r->target) ? "gone" : "-");
	buf_addf(b, "%10s\n", buf_str(&cell));
	buf_release(&cell);
}

void diff_rows_render(struct buf *out, const struct diff_rows *rows, enum diff_format fmt,
		      const char *group_by, const char *bname, const char *tname)
{
	size_t w = 8;

	for (size_t i = 0; i < rows->n; i++)
		w = strlen(rows->v[i].name) > w ? strlen(rows->v[i].name) : w;
	if (fmt == DIFF_JSON)
		buf_adds(out, "[");
	else if (fmt == DIFF_CSV)
		buf_adds(out, "name,baseline,target,change\n");
	else if (fmt == DIFF_MARKDOWN)
		buf_adds(out, "| name | baseline | target | change |\n|---|---:|---:|---:|\n");
	else
		buf_addf(out, "%-*s %14s %14s %10s\n", (int)w, group_by ? group_by : "location",
			 "baseline", "target", "change");
	for (size_t i = 0; i < rows->n; i++) {
		if (fmt == DIFF_JSON)
			json_row(out, &rows->v[i], i == 0);
		else if (fmt == DIFF_CSV)
			csv_row(out, &rows->v[i]);
		else if (fmt == DIFF_MARKDOWN)
			markdown_row(out, &rows->v[i]);
		else
			text_row(out, &rows->v[i], w);
	}
	if (fmt == DIFF_JSON)
		buf_adds(out, "\n]\n");
	else if (fmt == DIFF_TEXT)
		buf_addf(out, "(%s -> %s)\n", bname, tname);
}
