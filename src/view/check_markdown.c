/*
 * `check --format markdown`: a report that fits a pull request comment.
 * One section per compared pair, failing ones first: a heading with the
 * configuration's brief title, a table of the results that changed, and
 * the per-location detail folded in <details>. Over r->max_chars, the
 * detail goes first, then whole sections from the end, and a note says
 * what was cut (`--format json` keeps everything).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/common.h"
#include "view/check_view.h"

/* Rows of changed results shown above the fold; the rest are folded. */
#define MD_CHANGED_ROWS 30
/* A cell longer than this (a C++ name) is cut with an ellipsis; a
 * heading (a configuration in full) may be longer. */
#define MD_CELL_MAX 120
#define MD_HEADING_MAX 400
/* Profiles without a baseline listed by name. */
#define MD_UNMATCHED_MAX 20
/* Room kept for the note on what was cut. */
#define MD_NOTE_ROOM 400

/* Text in a table or heading: no '|' or newline may break the row or
 * the line, no '<' start markup; past @max characters it is cut. */
static void md_text(struct buf *b, const char *s, size_t max)
{
	size_t n = 0;

	for (; *s && n < max; s++, n++) {
		if (*s == '|')
			buf_adds(b, "\\|");
		else if (*s == '<')
			buf_adds(b, "&lt;");
		else
			buf_addc(b, *s == '\n' || *s == '\r' ? ' ' : *s);
	}
	/* Not in the middle of a UTF-8 sequence. */
	while (*s && ((unsigned char)*s & 0xc0) == 0x80)
		buf_addc(b, *s++);
	if (*s)
		buf_adds(b, "…");
}

static void md_cell(struct buf *b, const char *s)
{
	md_text(b, s, MD_CELL_MAX);
}

static void md_num(struct buf *b, double v)
{
	buf_adds(b, " |");
	if (!isnan(v))
		buf_addf(b, " %.6g", v);
}

/* A result worth a row above the fold: anything but "no change". */
static bool changed(const struct change *c)
{
	return c->cls != CH_NO_CHANGE;
}

/* How bad a pair is, for the order of the sections: 0 fails the check,
 * 1 has changes, 2 has none. */
static int rank(const struct check_report *r, const struct check_pair *p)
{
	int best = 2;

	for (size_t i = 0; i < p->changes.n; i++) {
		if (check_fails(r, p->changes.v[i].cls))
			return 0;
		if (changed(&p->changes.v[i]))
			best = 1;
	}
	return best;
}

static void add_class(struct buf *b, const struct check_report *r, const struct change *c)
{
	bool bold = check_fails(r, c->cls);

	buf_addf(b, " | %s%s%s", bold ? "**" : "", change_class_name(c->cls), bold ? "**" : "");
	if (c->note) {
		buf_adds(b, ": ");
		md_cell(b, c->note);
	}
}

static void add_interval(struct buf *b, const struct change *c)
{
	buf_adds(b, " | ");
	if (!isnan(c->ci_low)) {
		check_add_percent(b, c->ci_low);
		buf_adds(b, " … ");
		check_add_percent(b, c->ci_high);
	}
}

/* The cells both tables start a row with: location, result, change (and
 * its interval), confidence. */
static void row_head(struct buf *b, const struct check_report *r, const struct change *c)
{
	buf_adds(b, "| ");
	md_cell(b, c->location);
	add_class(b, r, c);
	buf_adds(b, " | ");
	check_add_percent(b, c->rel_change);
	add_interval(b, c);
	buf_adds(b, " | ");
	check_add_confidence(b, c);
}

/* The rows of the changed results, those that fail the check first; at
 * most MD_CHANGED_ROWS. */
static void changed_table(struct buf *b, const struct check_report *r, const struct check_pair *p)
{
	size_t shown = 0, total = 0;

	for (size_t i = 0; i < p->changes.n; i++)
		total += changed(&p->changes.v[i]);
	if (!total) {
		buf_addf(b, "No change in %zu result%s.\n", p->changes.n,
			 p->changes.n == 1 ? "" : "s");
		return;
	}
	buf_adds(b, "| location | result | change | interval | confidence |\n"
		    "|---|---|---|---|---|\n");
	/* Failing results first, then the other changes. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < p->changes.n && shown < MD_CHANGED_ROWS; i++) {
			const struct change *c = &p->changes.v[i];

			if (!changed(c) || check_fails(r, c->cls) != (pass == 0))
				continue;
			row_head(b, r, c);
			buf_adds(b, " |\n");
			shown++;
		}
	}
	if (shown < total)
		buf_addf(b, "\n%zu more changed result%s in the detail below.\n", total - shown,
			 total - shown == 1 ? "" : "s");
}

/* Every result of the pair, folded. */
static void detail(struct buf *b, const struct check_report *r, const struct check_pair *p)
{
	buf_addf(b,
		 "\n<details><summary>All %zu result%s</summary>\n\n"
		 "| location | result | change | interval | confidence | baseline | target | "
		 "method |\n|---|---|---|---|---|---|---|---|\n",
		 p->changes.n, p->changes.n == 1 ? "" : "s");
	for (size_t i = 0; i < p->changes.n; i++) {
		const struct change *c = &p->changes.v[i];

		row_head(b, r, c);
		md_num(b, c->baseline);
		md_num(b, c->target);
		buf_addf(b, " | %s |\n", c->method);
	}
	buf_adds(b, "\n</details>\n");
}

static void side(struct buf *b, const char *id, const char *version)
{
	if (*id)
		buf_addf(b, "`%.8s`", id);
	if (*version)
		buf_addf(b, "%s@%.7s", *id ? " " : "", version);
}

static void heading(struct buf *b, const char *title, const struct check_pair *p)
{
	buf_adds(b, "\n#### ");
	md_text(b, title, MD_HEADING_MAX);
	buf_adds(b, "\n\n");
	side(b, p->baseline_id, p->baseline_version);
	if (!*p->baseline_id && !*p->baseline_version)
		md_cell(b, p->baseline_name);
	buf_adds(b, " → ");
	side(b, p->target_id, p->target_version);
	if (!*p->target_id && !*p->target_version)
		md_cell(b, p->target_name);
	buf_adds(b, "\n\n");
}

static void unmatched(struct buf *b, const struct check_report *r)
{
	size_t n = r->without_baseline < MD_UNMATCHED_MAX ? r->without_baseline : MD_UNMATCHED_MAX;

	if (!r->without_baseline)
		return;
	buf_adds(b, "\nWithout a baseline:\n\n");
	for (size_t i = 0; i < n; i++) {
		buf_adds(b, "- ");
		md_cell(b, r->unmatched[i].config);
		buf_adds(b, ": ");
		md_cell(b, r->unmatched[i].name);
		if (*r->unmatched[i].version)
			buf_addf(b, " (%.7s)", r->unmatched[i].version);
		buf_addc(b, '\n');
	}
	if (n < r->without_baseline)
		buf_addf(b, "- and %zu more\n", r->without_baseline - n);
}

/* The pairs in the order their sections come: failing, changed, the rest. */
static size_t *section_order(const struct check_report *r)
{
	size_t *ord = xcalloc(r->n + 1, sizeof(*ord)), k = 0;

	for (int want = 0; want <= 2; want++)
		for (size_t i = 0; i < r->n; i++)
			if (rank(r, &r->pairs[i]) == want)
				ord[k++] = i;
	return ord;
}

struct cut {
	size_t details, sections, results;
};

static void cut_note(struct buf *b, const struct check_report *r, const struct cut *c)
{
	buf_addf(b, "\n_Cut to fit %zu characters:", r->max_chars);
	if (c->details)
		buf_addf(b, " the detail of %zu configuration%s", c->details,
			 c->details == 1 ? "" : "s");
	if (c->sections)
		buf_addf(b, "%s %zu more configuration%s (%zu result%s)", c->details ? "; and" : "",
			 c->sections, c->sections == 1 ? "" : "s", c->results,
			 c->results == 1 ? "" : "s");
	buf_adds(b, ". `veles check --format json` has every result._\n");
}

/*
 * Which sections and details fit in @room bytes: every heading and table
 * that fits, in order, before any detail; then the details, in order,
 * while room is left.
 */
static void fit(const struct buf *heads, const struct buf *folds, size_t n, size_t room,
		bool *head_in, bool *fold_in, struct cut *cut)
{
	size_t used = 0;

	for (size_t k = 0; k < n; k++) {
		head_in[k] = used + heads[k].len <= room;
		used += head_in[k] ? heads[k].len : 0;
	}
	for (size_t k = 0; k < n; k++) {
		fold_in[k] = head_in[k] && used + folds[k].len <= room;
		used += fold_in[k] ? folds[k].len : 0;
		cut->details += head_in[k] && !fold_in[k] && folds[k].len;
	}
}

void check_render_markdown(struct buf *dst, const struct check_report *r)
{
	const char **titles = check_pair_titles(r);
	size_t *ord = section_order(r), n = r->n;
	struct buf out = BUF_INIT, tail = BUF_INIT;
	struct buf *heads = xcalloc(n + 1, sizeof(*heads)), *folds = xcalloc(n + 1, sizeof(*folds));
	bool *head_in = xcalloc(n + 1, sizeof(bool)), *fold_in = xcalloc(n + 1, sizeof(bool));
	size_t room = SIZE_MAX;
	struct cut cut = {0, 0, 0};

	buf_adds(&out, "**");
	check_summary(&out, r);
	buf_adds(&out, "**\n");
	unmatched(&tail, r);
	for (size_t k = 0; k < n; k++) {
		const struct check_pair *p = &r->pairs[ord[k]];

		heading(&heads[k], titles[ord[k]], p);
		changed_table(&heads[k], r, p);
		if (p->changes.n)
			detail(&folds[k], r, p);
	}
	if (r->max_chars) {
		size_t keep = out.len + tail.len + MD_NOTE_ROOM;

		room = r->max_chars > keep ? r->max_chars - keep : 0;
	}
	fit(heads, folds, n, room, head_in, fold_in, &cut);
	for (size_t k = 0; k < n; k++) {
		if (!head_in[k]) {
			cut.sections++;
			cut.results += r->pairs[ord[k]].changes.n;
			continue;
		}
		buf_add(&out, heads[k].data, heads[k].len);
		if (fold_in[k])
			buf_add(&out, folds[k].data, folds[k].len);
	}
	buf_add(&out, tail.data, tail.len);
	if (cut.details || cut.sections)
		cut_note(&out, r, &cut);
	buf_add(dst, out.data, out.len);
	for (size_t k = 0; k < n; k++) {
		buf_release(&heads[k]);
		buf_release(&folds[k]);
	}
	free(heads);
	free(folds);
	free(head_in);
	free(fold_in);
	buf_release(&out);
	buf_release(&tail);
	free(ord);
	free(titles);
}
