/* A check report rendered: terminal tree, JSON and JUnit (check_view.h);
 * markdown is check_markdown.c. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "view/check_view.h"

int check_parse_format(const char *arg, enum check_format *out)
{
	static const char *const names[] = {"text", "json", "markdown", "junit"};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (strcmp(arg, names[i]) == 0) {
			*out = (enum check_format)i;
			return 0;
		}
	}
	return err_set(ERR_INVALID, "unknown format '%s': use text, json, markdown or junit", arg);
}

void check_add_percent(struct buf *b, double rel)
{
	if (isnan(rel))
		buf_adds(b, "n/a");
	else
		buf_addf(b, "%+.1f%%", 100 * rel);
}

void check_add_confidence(struct buf *b, const struct change *c)
{
	if (isnan(c->confidence))
		return;
	if (strcmp(c->confidence_kind, "p-value") == 0)
		buf_addf(b, "p=%.2g", c->confidence);
	else
		buf_addf(b, "%s=%.3g", c->confidence_kind, c->confidence);
}

/* How many sizes a location compared size by size was judged on. */
static size_t used_sizes(const struct change *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nsizes; i++)
		n += c->sizes[i].used;
	return n;
}

/* --verbose: a location compared size by size, one line per size. */
static void print_sizes(struct buf *out, const struct change *c, const char *rail)
{
	buf_addf(out, "  %s    %12s  %7s  %12s  %12s  %8s  %s\n", rail, "size", "n", "baseline",
		 "target", "change", "p");
	for (size_t i = 0; i < c->nsizes; i++) {
		const struct change_size *z = &c->sizes[i];
		char n[32];

		snprintf(n, sizeof(n), "%zu/%zu", z->n_baseline, z->n_target);
		buf_addf(out, "  %s    %12.6g  %7s  ", rail, z->size, n);
		if (!z->used) {
			buf_addf(out, "%12s  %12s  %8s  (too few values on a side: not counted)\n",
				 "", "", "");
			continue;
		}
		buf_addf(out, "%12.6g  %12.6g  ", z->baseline, z->target);
		if (z->baseline > 0)
			buf_addf(out, "%+7.1f%%  ", 100 * (z->target / z->baseline - 1));
		else
			buf_addf(out, "%8s  ", "n/a");
		if (isnan(z->p))
			buf_addc(out, '\n');
		else
			buf_addf(out, "%.2g\n", z->p);
	}
}

/* "1a2b3c4d name @abcdef0": a profile, its id and its version. */
static void add_label(struct buf *b, const char *id, const char *name, const char *version)
{
	if (id && *id)
		buf_addf(b, "%.8s ", id);
	buf_adds(b, name);
	if (version && *version)
		buf_addf(b, " @%.7s", version);
}

/* One result as the terminal shows it, after the class. */
static void add_details(struct buf *b, const struct change *c)
{
	if (!isnan(c->rel_change)) {
		check_add_percent(b, c->rel_change);
		if (!isnan(c->ci_low)) {
			buf_adds(b, " [");
			check_add_percent(b, c->ci_low);
			buf_adds(b, ", ");
			check_add_percent(b, c->ci_high);
			buf_addc(b, ']');
		}
		buf_adds(b, "  ");
		check_add_confidence(b, c);
		buf_addf(b, "  %.6g -> %.6g", c->baseline, c->target);
	}
	if (c->detail)
		buf_addf(b, "  %s", c->detail);
	/* The model methods compare fitted curves, not counted values. */
	buf_adds(b, "  (");
	if (c->n_baseline || c->n_target)
		buf_addf(b, "%zu vs %zu values, ", c->n_baseline, c->n_target);
	if (c->nsizes)
		buf_addf(b, "%zu size%s, ", used_sizes(c), used_sizes(c) == 1 ? "" : "s");
	buf_addf(b, "%s%s%s)", c->method, c->note ? "; " : "", c->note ? c->note : "");
}

static const char *class_colour(enum change_class c)
{
	if (change_is_degradation(c))
		return c == CH_MAYBE_DEGRADATION ? "\033[33m" : "\033[1;31m";
	if (change_is_optimization(c))
		return "\033[32m";
	return "";
}

/* The pair's changes, in location order; stable, so methods keep theirs. */
static size_t *by_location(const struct check_pair *p)
{
	size_t *ord = xcalloc(p->changes.n ? p->changes.n : 1, sizeof(*ord));

	for (size_t i = 0; i < p->changes.n; i++) {
		size_t j = i;

		while (j > 0 &&
		       strcmp(p->changes.v[ord[j - 1]].location, p->changes.v[i].location) > 0) {
			ord[j] = ord[j - 1];
			j--;
		}
		ord[j] = i;
	}
	return ord;
}

/* One pair as a tree: a branch per location, a leaf per method's verdict. */
static void print_pair(struct buf *out, const struct check_pair *p, const char *title, bool colour,
		       bool verbose, struct buf *b)
{
	size_t *ord = by_location(p), n = p->changes.n;

	buf_reset(b);
	add_label(b, p->baseline_id, p->baseline_name, p->baseline_version);
	buf_adds(b, " -> ");
	add_label(b, p->target_id, p->target_name, p->target_version);
	buf_addf(out, "%s\n  %s\n", title, buf_str(b));
	for (size_t k = 0; k < n;) {
		const char *loc = p->changes.v[ord[k]].location;
		size_t end = k;
		bool last;

		while (end < n && strcmp(p->changes.v[ord[end]].location, loc) == 0)
			end++;
		last = end == n;
		buf_addf(out, "  %s %s\n", last ? "└─" : "├─", loc);
		for (; k < end; k++) {
			const struct change *c = &p->changes.v[ord[k]];
			const char *col = colour ? class_colour(c->cls) : "";

			buf_reset(b);
			add_details(b, c);
			buf_addf(out, "  %s  %s%s%s  %s\n", last ? " " : "│", col,
				 change_class_name(c->cls), *col ? "\033[0m" : "", buf_str(b));
			if (verbose && c->nsizes)
				print_sizes(out, c, last ? " " : "│");
		}
	}
	free(ord);
}

static void print_text(struct buf *out, const struct check_report *r, bool colour)
{
	struct buf b = BUF_INIT;
	const char **titles = check_pair_titles(r);

	for (size_t i = 0; i < r->n; i++) {
		if (i)
			buf_addc(out, '\n');
		print_pair(out, &r->pairs[i], titles[i], colour, r->verbose, &b);
	}
	free(titles);
	buf_reset(&b);
	check_summary(&b, r);
	buf_addf(out, "%s%s\n", r->n ? "\n" : "", buf_str(&b));
	buf_release(&b);
}

static void json_num(struct buf *b, const char *key, double v)
{
	buf_addf(b, ",\"%s\":", key);
	if (isnan(v) || isinf(v))
		buf_adds(b, "null");
	else
		buf_addf(b, "%.17g", v);
}

static void json_str(struct buf *b, const char *key, const char *s)
{
	buf_addf(b, ",\"%s\":", key);
	buf_add_json_str(b, s, strlen(s));
}

/* A location compared size by size: "sizes": [{size, n_baseline, ...}]. */
static void json_sizes(struct buf *b, const struct change *c)
{
	buf_adds(b, ",\"sizes\":[");
	for (size_t i = 0; i < c->nsizes; i++) {
		const struct change_size *z = &c->sizes[i];

		buf_adds(b, i ? ",{\"size\":" : "{\"size\":");
		buf_addf(b, "%.17g", z->size);
		buf_addf(b, ",\"n_baseline\":%zu,\"n_target\":%zu", z->n_baseline, z->n_target);
		json_num(b, "baseline", z->baseline);
		json_num(b, "target", z->target);
		json_num(b, "p", z->p);
		buf_addf(b, ",\"counted\":%s}", z->used ? "true" : "false");
	}
	buf_addc(b, ']');
}

static void json_change(struct buf *b, const struct check_pair *p, const struct change *c)
{
	buf_adds(b, "{\"location\":");
	buf_add_json_str(b, c->location, strlen(c->location));
	json_str(b, "result", change_class_name(c->cls));
	json_str(b, "method", c->method);
	json_num(b, "rel_change", c->rel_change);
	json_num(b, "ci_low", c->ci_low);
	json_num(b, "ci_high", c->ci_high);
	json_num(b, "confidence", c->confidence);
	json_str(b, "confidence_kind", c->confidence_kind);
	json_num(b, "baseline", c->baseline);
	json_num(b, "target", c->target);
	buf_addf(b, ",\"n_baseline\":%zu,\"n_target\":%zu", c->n_baseline, c->n_target);
	if (c->note)
		json_str(b, "note", c->note);
	if (c->detail)
		json_str(b, "detail", c->detail);
	if (c->nsizes)
		json_sizes(b, c);
	json_str(b, "config", p->config ? p->config : "");
	json_str(b, "config_full", p->config_full ? p->config_full : "");
	json_str(b, "baseline_profile", p->baseline_name);
	json_str(b, "target_profile", p->target_name);
	json_str(b, "baseline_id", p->baseline_id);
	json_str(b, "target_id", p->target_id);
	json_str(b, "baseline_version", p->baseline_version);
	json_str(b, "target_version", p->target_version);
	buf_addc(b, '}');
}

static void print_json(struct buf *out, const struct check_report *r)
{
	struct buf b = BUF_INIT;
	struct check_counts n;
	bool first = true;

	buf_adds(&b, "{\"results\":[");
	for (size_t i = 0; i < r->n; i++) {
		for (size_t j = 0; j < r->pairs[i].changes.n; j++) {
			if (!first)
				buf_addc(&b, ',');
			first = false;
			json_change(&b, &r->pairs[i], &r->pairs[i].changes.v[j]);
		}
	}
	buf_adds(&b, "],\"without_baseline\":[");
	for (size_t i = 0; i < r->without_baseline; i++) {
		const struct check_unmatched *u = &r->unmatched[i];

		buf_adds(&b, i ? ",{\"profile\":" : "{\"profile\":");
		buf_add_json_str(&b, u->name, strlen(u->name));
		json_str(&b, "config", u->config);
		json_str(&b, "version", u->version);
		buf_addc(&b, '}');
	}
	check_report_counts(r, &n);
	buf_addf(&b,
		 "],\"summary\":{\"degradations\":%zu,\"maybe_degradations\":%zu,"
		 "\"optimizations\":%zu,\"other\":%zu,\"without_baseline\":%zu,\"failing\":%zu,"
		 "\"fail_on\":\"%s\"}}\n",
		 n.degradations, n.maybe, n.optimizations, n.other, r->without_baseline, n.failing,
		 check_fail_on_name(r->fail_from));
	buf_add(out, b.data, b.len);
	buf_release(&b);
}

static void junit_case(struct buf *b, const struct check_report *r, const char *title,
		       const struct change *c)
{
	struct buf msg = BUF_INIT;

	buf_adds(b, "  <testcase classname=\"");
	buf_add_xml(b, title, SIZE_MAX);
	buf_adds(b, "\" name=\"");
	buf_add_xml(b, c->location, SIZE_MAX);
	buf_adds(b, "\"");
	if (c->note && !check_fails(r, c->cls)) {
		/* Could not be judged: neither a pass nor a failure. */
		buf_adds(b, ">\n    <skipped message=\"");
		buf_add_xml(b, c->note, SIZE_MAX);
		buf_adds(b, "\"/>\n  </testcase>\n");
		return;
	}
	if (!check_fails(r, c->cls)) {
		buf_adds(b, "/>\n");
		return;
	}
	buf_addf(&msg, "%s ", change_class_name(c->cls));
	add_details(&msg, c);
	buf_adds(b, ">\n    <failure type=\"");
	buf_adds(b, change_class_name(c->cls));
	buf_adds(b, "\" message=\"");
	buf_add_xml(b, buf_str(&msg), SIZE_MAX);
	buf_adds(b, "\"/>\n  </testcase>\n");
	buf_release(&msg);
}

static void print_junit(struct buf *out, const struct check_report *r)
{
	struct buf b = BUF_INIT;
	size_t skipped = r->without_baseline;
	const char **titles = check_pair_titles(r);
	struct check_counts n;

	check_report_counts(r, &n);
	for (size_t i = 0; i < r->n; i++)
		for (size_t j = 0; j < r->pairs[i].changes.n; j++)
			skipped += r->pairs[i].changes.v[j].note &&
				   !check_fails(r, r->pairs[i].changes.v[j].cls);
	buf_addf(&b,
		 "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		 "<testsuite name=\"veles check\" tests=\"%zu\" failures=\"%zu\" "
		 "skipped=\"%zu\">\n",
		 n.degradations + n.maybe + n.optimizations + n.other + r->without_baseline,
		 n.failing, skipped);
	for (size_t i = 0; i < r->n; i++)
		for (size_t j = 0; j < r->pairs[i].changes.n; j++)
			junit_case(&b, r, titles[i], &r->pairs[i].changes.v[j]);
	/* Nothing to compare with is not a pass: a skipped case says so. */
	for (size_t i = 0; i < r->without_baseline; i++) {
		buf_adds(&b, "  <testcase classname=\"");
		buf_add_xml(&b, r->unmatched[i].config, SIZE_MAX);
		buf_adds(&b, "\" name=\"");
		buf_add_xml(&b, r->unmatched[i].name, SIZE_MAX);
		buf_adds(&b, "\">\n    <skipped message=\"no baseline profile of this "
			     "configuration\"/>\n  </testcase>\n");
	}
	buf_adds(&b, "</testsuite>\n");
	buf_add(out, b.data, b.len);
	buf_release(&b);
	free(titles);
}

void check_render(struct buf *out, const struct check_report *r, enum check_format fmt, bool colour)
{
	switch (fmt) {
	case CHECK_TEXT:
		print_text(out, r, colour);
		break;
	case CHECK_JSON:
		print_json(out, r);
		break;
	case CHECK_MARKDOWN:
		check_render_markdown(out, r);
		break;
	case CHECK_JUNIT:
		print_junit(out, r);
		break;
	}
}
