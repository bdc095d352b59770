/* collect regex's summary and header.lines (summary.h). */
#include <stdlib.h>
#include <string.h>

#include "analyze/stats.h"
#include "collect/collector.h"
#include "collect/regex/summary.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"

/* Locations listed in the summary; the rest are counted. */
#define SUMMARY_LOCATIONS 20

void regex_quote(struct buf *b, const char *text)
{
	buf_addc(b, '\'');
	for (const unsigned char *s = (const unsigned char *)text; *s; s++)
		buf_addc(b, *s < 0x20 || *s == 0x7f ? '?' : (char)*s);
	buf_addc(b, '\'');
}

static void json_count(struct buf *b, const char *key, unsigned long long v)
{
	buf_addf(b, ",\"%s\":%llu", key, v);
}

static void json_text(struct buf *b, const char *key, const char *v)
{
	if (!v)
		return;
	buf_addf(b, ",\"%s\":", key);
	buf_add_json_str(b, v, strlen(v));
}

void regex_header(struct profile *p, const struct regex_totals *t)
{
	const struct rx_counts *c = &t->counts;
	struct buf b = BUF_INIT;

	buf_addf(&b, "{\"runs\":%ld", t->runs);
	json_count(&b, "read", c->lines);
	json_count(&b, "matched", c->matched);
	json_count(&b, "ignored", c->ignored);
	json_count(&b, "unmatched", c->unmatched);
	json_count(&b, "rejected", c->rejected);
	json_text(&b, "first_unmatched", c->first_unmatched);
	json_text(&b, "first_rejected", c->first_rejected);
	json_text(&b, "rejected_because", c->reject_why);
	if (t->files_read || t->files_skipped) {
		json_count(&b, "files_read", t->files_read);
		json_count(&b, "files_skipped", t->files_skipped);
	}
	buf_addc(&b, '}');
	p->header_extra =
		xrealloc(p->header_extra, (p->nheader_extra + 1) * sizeof(*p->header_extra));
	p->header_extra[p->nheader_extra++] = (struct kv){xstrdup("lines"), buf_detach(&b, NULL)};
}

/* "1,234 lines: 1,200 matched, 30 ignored, 4 unmatched (the first: '...')" */
static void counts_line(const struct regex_totals *t, struct buf *b)
{
	const struct rx_counts *c = &t->counts;

	buf_addf(b, "  %ld run%s, %llu line%s read: %llu matched", t->runs, t->runs == 1 ? "" : "s",
		 (unsigned long long)c->lines, c->lines == 1 ? "" : "s",
		 (unsigned long long)c->matched);
	if (c->ignored)
		buf_addf(b, ", %llu ignored", (unsigned long long)c->ignored);
	if (c->unmatched) {
		buf_addf(b, ", %llu unmatched (the first: ", (unsigned long long)c->unmatched);
		regex_quote(b, c->first_unmatched ? c->first_unmatched : "");
		buf_addc(b, ')');
	}
	if (c->rejected) {
		buf_addf(b, ", %llu rejected (the first: ", (unsigned long long)c->rejected);
		regex_quote(b, c->first_rejected ? c->first_rejected : "");
		buf_addf(b, ": %s)", c->reject_why ? c->reject_why : "");
	}
	buf_addc(b, '\n');
	if (t->files_skipped)
		buf_addf(b, "  %lu file%s not written by the run%s skipped\n", t->files_skipped,
			 t->files_skipped == 1 ? "" : "s",
			 t->files_skipped == 1 ? " was" : "s were");
}

/* Each location's amounts, in the profile's order of first sight. */
static void locations(const struct profile *p, struct buf *out)
{
	size_t ntypes = p->types.nrows, nres = profile_nres(p), shown = 0, used = 0;
	size_t *count = xcalloc(ntypes + 1, sizeof(*count)), *at = xcalloc(ntypes + 1, sizeof(*at));
	double *v = xmalloc((nres + 1) * sizeof(*v));
	const char *unit = p->nunits ? p->units[0].value : "";
	struct buf label = BUF_INIT, scratch = BUF_INIT;

	for (size_t i = 0; i < nres; i++)
		count[p->res_type[i]]++;
	for (size_t t = 0, sum = 0; t < ntypes; t++) {
		at[t] = sum;
		sum += count[t];
	}
	for (size_t i = 0; i < nres; i++)
		v[at[p->res_type[i]]++] = profile_amount(p, i);
	for (size_t t = 0; t < ntypes; t++)
		used += count[t] > 0;
	buf_addf(out, "  %zu location%s, amounts in %s:\n", used, used == 1 ? "" : "s",
		 *unit ? unit : "no unit");
	for (size_t i = 0; i < nres && shown < SUMMARY_LOCATIONS; i++) {
		size_t t = p->res_type[i];
		struct stats s;

		if (!count[t])
			continue;
		stats_compute(v + at[t] - count[t], count[t], &s);
		buf_reset(&label);
		profile_group_label(&label, profile_uid(p, i, &scratch), profile_subtype(p, i));
		buf_addf(out, "    %-32s n=%-4zu median %-10.4g mean %.4g ± %.2g  (%.4g … %.4g)\n",
			 buf_str(&label), s.n, s.median, s.mean, s.stddev, s.min, s.max);
		count[t] = 0;
		shown++;
	}
	if (used > shown)
		buf_addf(out, "    ... and %zu more\n", used - shown);
	buf_release(&label);
	buf_release(&scratch);
	free(count);
	free(at);
	free(v);
}

void regex_summary(const struct collect_ctx *c, const struct profile *p,
		   const struct regex_totals *t)
{
	struct buf out = BUF_INIT;

	buf_adds(&out, "Benchmark:");
	for (int i = 0; i < c->argc; i++)
		buf_addf(&out,
			 c->argv[i][strcspn(c->argv[i], " \t'\"\\$`|&;<>()*?")] ? " '%s'" : " %s",
			 c->argv[i]);
	buf_addc(&out, '\n');
	counts_line(t, &out);
	locations(p, &out);
	collect_say(c, COLLECT_MSG_OUT, "%s", buf_str(&out));
	buf_release(&out);
}
