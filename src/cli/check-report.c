/* Printing check results: terminal tree, JSON, markdown and JUnit. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/check.h"
#include "cli/select.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/strmap.h"

struct check_pair *check_report_add(struct check_report *r)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 8;
		r->pairs = xrealloc(r->pairs, r->cap * sizeof(*r->pairs));
	}
	memset(&r->pairs[r->n], 0, sizeof(r->pairs[0]));
	return &r->pairs[r->n++];
}

void check_report_unmatched(struct check_report *r, const char *name, const char *config,
			    const char *version)
{
	struct check_unmatched *u;

	if (r->without_baseline == r->unmatched_cap) {
		r->unmatched_cap = r->unmatched_cap ? 2 * r->unmatched_cap : 4;
		r->unmatched = xrealloc(r->unmatched, r->unmatched_cap * sizeof(*r->unmatched));
	}
	u = &r->unmatched[r->without_baseline++];
	u->name = xstrdup(name);
	u->config = xstrdup(config);
	snprintf(u->version, sizeof(u->version), "%s", version ? version : "");
}

void check_report_free(struct check_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->pairs[i].baseline_name);
		free(r->pairs[i].target_name);
		free(r->pairs[i].config);
		free(r->pairs[i].config_full);
		free(r->pairs[i].config_key);
		change_list_free(&r->pairs[i].changes);
	}
	free(r->pairs);
	for (size_t i = 0; i < r->without_baseline; i++) {
		free(r->unmatched[i].name);
		free(r->unmatched[i].config);
	}
	free(r->unmatched);
	memset(r, 0, sizeof(*r));
}

static const struct {
	const char *name;
	enum change_class from;
} fail_levels[] = {
	{"maybe", CH_MAYBE_DEGRADATION},
	{"degradation", CH_DEGRADATION},
	{"severe", CH_SEVERE_DEGRADATION},
};

int check_parse_fail_on(const char *arg, enum change_class *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(fail_levels); i++) {
		if (strcmp(arg, fail_levels[i].name) == 0) {
			*out = fail_levels[i].from;
			return 0;
		}
	}
	return err_set(ERR_INVALID, "--fail-on wants maybe, degradation or severe, not '%s'", arg);
}

const char *check_fail_on_name(enum change_class c)
{
	for (size_t i = 0; i < ARRAY_SIZE(fail_levels); i++)
		if (fail_levels[i].from == c)
			return fail_levels[i].name;
	return "degradation";
}

/* The degradation classes run from Total (0) to Maybe: a class fails when
 * it is at least as bad as the mildest failing one. */
bool check_fails(const struct check_report *r, enum change_class c)
{
	return change_is_degradation(c) && c <= r->fail_from;
}

size_t check_report_failing(const struct check_report *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++)
		for (size_t j = 0; j < r->pairs[i].changes.n; j++)
			n += check_fails(r, r->pairs[i].changes.v[j].cls);
	return n;
}

void check_report_counts(const struct check_report *r, struct check_counts *n)
{
	memset(n, 0, sizeof(*n));
	for (size_t i = 0; i < r->n; i++) {
		for (size_t j = 0; j < r->pairs[i].changes.n; j++) {
			enum change_class c = r->pairs[i].changes.v[j].cls;

			if (c == CH_MAYBE_DEGRADATION)
				n->maybe++;
			else if (change_is_degradation(c))
				n->degradations++;
			else if (change_is_optimization(c))
				n->optimizations++;
			else
				n->other++;
			n->failing += check_fails(r, c);
		}
	}
}

static const char *plural(size_t n, const char *s)
{
	return n == 1 ? "" : s;
}

void check_summary(struct buf *b, const struct check_report *r)
{
	struct check_counts n;

	check_report_counts(r, &n);
	buf_addf(b,
		 "%zu degradation%s, %zu maybe degradation%s, %zu optimization%s, %zu other "
		 "result%s",
		 n.degradations, plural(n.degradations, "s"), n.maybe, plural(n.maybe, "s"),
		 n.optimizations, plural(n.optimizations, "s"), n.other, plural(n.other, "s"));
	if (r->without_baseline)
		buf_addf(b, "; %zu profile%s had no baseline", r->without_baseline,
			 plural(r->without_baseline, "s"));
	if (n.failing)
		buf_addf(b, "; %zu fail%s the check", n.failing, n.failing == 1 ? "s" : "");
	else
		buf_adds(b, "; none fails the check");
	buf_addf(b, " (--fail-on %s)", check_fail_on_name(r->fail_from));
}

bool check_pair_disjoint(const struct check_pair *p, struct buf *b)
{
	const char *sep[2] = {"", ""};
	struct buf side[2] = {BUF_INIT, BUF_INIT};
	size_t shown[2] = {0, 0}, total[2] = {0, 0};

	for (size_t i = 0; i < p->changes.n; i++) {
		enum change_class c = p->changes.v[i].cls;

		if (c != CH_NOT_IN_BASELINE && c != CH_NOT_IN_TARGET)
			return false;
	}
	for (size_t i = 0; i < p->changes.n; i++) {
		int k = p->changes.v[i].cls == CH_NOT_IN_TARGET ? 0 : 1;

		if (total[k]++ < 3) {
			buf_addf(&side[k], "%s%s", sep[k], p->changes.v[i].location);
			sep[k] = ", ";
			shown[k]++;
		}
	}
	for (int k = 0; k < 2; k++)
		if (total[k] > shown[k])
			buf_addf(&side[k], ", ... (%zu)", total[k]);
	buf_addf(b, "%s and %s share no location: the baseline has %s, the target %s",
		 p->baseline_name, p->target_name, total[0] ? buf_str(&side[0]) : "none",
		 total[1] ? buf_str(&side[1]) : "none");
	buf_release(&side[0]);
	buf_release(&side[1]);
	return true;
}

const char **check_pair_titles(const struct check_report *r)
{
	const char **t = xcalloc(r->n + 1, sizeof(*t));
	size_t *first = xcalloc(r->n + 1, sizeof(*first));
	bool *clash = xcalloc(r->n + 1, sizeof(*clash));
	struct strmap seen = {0};
	size_t *id = xcalloc(r->n + 1, sizeof(*id));

	/* Two configurations whose brief titles read alike (the same
	 * postprocessors with other parameters) are both named in full. */
	for (size_t i = 0; i < r->n; i++) {
		const struct check_pair *p = &r->pairs[i];
		bool added;

		id[i] = strmap_intern(&seen, p->config, &added);
		if (added)
			first[id[i]] = i;
		else if (p->config_key && r->pairs[first[id[i]]].config_key &&
			 strcmp(p->config_key, r->pairs[first[id[i]]].config_key) != 0)
			clash[id[i]] = true;
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct check_pair *p = &r->pairs[i];

		t[i] = (r->verbose || clash[id[i]]) && p->config_full ? p->config_full : p->config;
	}
	strmap_free(&seen);
	free(first);
	free(clash);
	free(id);
	return t;
}

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
static void print_sizes(FILE *f, const struct change *c, const char *rail)
{
	fprintf(f, "  %s    %12s  %7s  %12s  %12s  %8s  %s\n", rail, "size", "n", "baseline",
		"target", "change", "p");
	for (size_t i = 0; i < c->nsizes; i++) {
		const struct change_size *z = &c->sizes[i];
		char n[32];

		snprintf(n, sizeof(n), "%zu/%zu", z->n_baseline, z->n_target);
		fprintf(f, "  %s    %12.6g  %7s  ", rail, z->size, n);
		if (!z->used) {
			fprintf(f, "%12s  %12s  %8s  (too few values on a side: not counted)\n", "",
				"", "");
			continue;
		}
		fprintf(f, "%12.6g  %12.6g  ", z->baseline, z->target);
		if (z->baseline > 0)
			fprintf(f, "%+7.1f%%  ", 100 * (z->target / z->baseline - 1));
		else
			fprintf(f, "%8s  ", "n/a");
		if (isnan(z->p))
			fputs("\n", f);
		else
			fprintf(f, "%.2g\n", z->p);
	}
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
static void print_pair(FILE *f, const struct check_pair *p, const char *title, bool colour,
		       bool verbose, struct buf *b)
{
	size_t *ord = by_location(p), n = p->changes.n;

	buf_reset(b);
	ref_label(b, p->baseline_id, p->baseline_name, p->baseline_version);
	buf_adds(b, " -> ");
	ref_label(b, p->target_id, p->target_name, p->target_version);
	fprintf(f, "%s\n  %s\n", title, buf_str(b));
	for (size_t k = 0; k < n;) {
		const char *loc = p->changes.v[ord[k]].location;
		size_t end = k;
		bool last;

		while (end < n && strcmp(p->changes.v[ord[end]].location, loc) == 0)
			end++;
		last = end == n;
		fprintf(f, "  %s %s\n", last ? "└─" : "├─", loc);
		for (; k < end; k++) {
			const struct change *c = &p->changes.v[ord[k]];
			const char *col = colour ? class_colour(c->cls) : "";

			buf_reset(b);
			add_details(b, c);
			fprintf(f, "  %s  %s%s%s  %s\n", last ? " " : "│", col,
				change_class_name(c->cls), *col ? "\033[0m" : "", buf_str(b));
			if (verbose && c->nsizes)
				print_sizes(f, c, last ? " " : "│");
		}
	}
	free(ord);
}

static void print_text(FILE *f, const struct check_report *r, bool colour)
{
	struct buf b = BUF_INIT;
	const char **titles = check_pair_titles(r);

	for (size_t i = 0; i < r->n; i++) {
		if (i)
			fputc('\n', f);
		print_pair(f, &r->pairs[i], titles[i], colour, r->verbose, &b);
	}
	free(titles);
	buf_reset(&b);
	check_summary(&b, r);
	fprintf(f, "%s%s\n", r->n ? "\n" : "", buf_str(&b));
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

static void print_json(FILE *f, const struct check_report *r)
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
	fwrite(b.data, 1, b.len, f);
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

static void print_junit(FILE *f, const struct check_report *r)
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
	fwrite(b.data, 1, b.len, f);
	buf_release(&b);
	free(titles);
}

void check_print(FILE *f, const struct check_report *r, enum check_format fmt, bool colour)
{
	switch (fmt) {
	case CHECK_TEXT:
		print_text(f, r, colour);
		break;
	case CHECK_JSON:
		print_json(f, r);
		break;
	case CHECK_MARKDOWN:
		check_print_markdown(f, r);
		break;
	case CHECK_JUNIT:
		print_junit(f, r);
		break;
	}
}
