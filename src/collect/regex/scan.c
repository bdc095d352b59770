/* collect regex's line scanner (scan.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "collect/meas.h"
#include "collect/regex/scan.h"
#include "profile/numfmt.h"
#include "util/buf.h"
#include "util/common.h"

/* A line longer than this without a newline is scanned as it is. */
#define LINE_MAX_BYTES (64u << 20)

struct rx_extra {
	uint32_t group;
	char *field;
};

struct rx_pat {
	pcre2_code *re;
	pcre2_match_data *md;
	bool anchored; /* can match only at the line's start: one try a line */
	rx_handler handler;
	void *arg;
	uint32_t g_uid, g_amount, g_unit, g_subtype; /* 0: the pattern has none */
	struct rx_extra *extra;
	size_t nextra;
};

struct rx_scan {
	struct rx_pat *measure, *ignore;
	size_t nmeasure, nignore;
	char *default_uid;
	struct buf partial[2];
	struct rx_counts counts;
	struct meas_field *fields;
	size_t fields_cap;
};

struct rx_match {
	const struct rx_pat *p;
	const char *line;
	size_t len;
	const PCRE2_SIZE *ov;
};

/* ---- counts ---- */

static char *sample(const char *text, size_t len)
{
	return xstrndup(text, len < RX_SAMPLE ? len : RX_SAMPLE);
}

void rx_counts_note(struct rx_counts *c, enum rx_kind kind, const char *text, size_t len,
		    const char *why)
{
	c->lines++;
	switch (kind) {
	case RX_LINE_MATCHED:
		c->matched++;
		break;
	case RX_LINE_IGNORED:
		c->ignored++;
		break;
	case RX_LINE_UNMATCHED:
		if (!c->unmatched++)
			c->first_unmatched = sample(text, len);
		break;
	case RX_LINE_REJECTED:
		if (!c->rejected++) {
			c->first_rejected = sample(text, len);
			c->reject_why = xstrdup(why ? why : "");
		}
		break;
	}
}

void rx_counts_add(struct rx_counts *to, const struct rx_counts *from)
{
	to->lines += from->lines;
	to->matched += from->matched;
	to->ignored += from->ignored;
	to->unmatched += from->unmatched;
	to->rejected += from->rejected;
	if (!to->first_unmatched && from->first_unmatched)
		to->first_unmatched = xstrdup(from->first_unmatched);
	if (!to->first_rejected && from->first_rejected) {
		to->first_rejected = xstrdup(from->first_rejected);
		free(to->reject_why);
		to->reject_why = xstrdup(from->reject_why ? from->reject_why : "");
	}
}

void rx_counts_release(struct rx_counts *c)
{
	free(c->first_unmatched);
	free(c->first_rejected);
	free(c->reject_why);
	memset(c, 0, sizeof(*c));
}

/* ---- patterns ---- */

struct rx_scan *rx_scan_new(void)
{
	return xcalloc(1, sizeof(struct rx_scan));
}

static void pat_release(struct rx_pat *p)
{
	pcre2_match_data_free(p->md);
	pcre2_code_free(p->re);
	for (size_t i = 0; i < p->nextra; i++)
		free(p->extra[i].field);
	free(p->extra);
}

void rx_scan_free(struct rx_scan *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nmeasure; i++)
		pat_release(&s->measure[i]);
	for (size_t i = 0; i < s->nignore; i++)
		pat_release(&s->ignore[i]);
	free(s->measure);
	free(s->ignore);
	free(s->default_uid);
	buf_release(&s->partial[0]);
	buf_release(&s->partial[1]);
	rx_counts_release(&s->counts);
	free(s->fields);
	free(s);
}

void rx_scan_set_default_uid(struct rx_scan *s, const char *uid)
{
	free(s->default_uid);
	s->default_uid = xstrdup(uid);
}

/*
 * Output is read as UTF-8 (so \w and . take "µs" whole) that may be
 * invalid in places: PCRE2_MATCH_INVALID_UTF matches around bad bytes
 * instead of failing the line.
 */
static int compile(const char *pattern, struct rx_pat *p)
{
	int code;
	PCRE2_SIZE at;
	PCRE2_UCHAR msg[256];
	uint32_t opts = 0;

	memset(p, 0, sizeof(*p));
	p->re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
			      PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &code, &at, NULL);
	if (!p->re) {
		pcre2_get_error_message(code, msg, sizeof(msg));
		return err_set(ERR_INVALID, "bad pattern '%s': %s at offset %zu", pattern,
			       (const char *)msg, (size_t)at);
	}
	/* Without JIT (an architecture PCRE2 has none for) the interpreter
	 * runs the same patterns, only slower. */
	pcre2_jit_compile(p->re, PCRE2_JIT_COMPLETE);
	p->md = pcre2_match_data_create_from_pattern(p->re, NULL);
	pcre2_pattern_info(p->re, PCRE2_INFO_ALLOPTIONS, &opts);
	p->anchored = (opts & PCRE2_ANCHORED) != 0;
	return 0;
}

/* The pattern's named groups: the ones with a meaning, and the others. */
static int read_names(struct rx_pat *p, const char *pattern)
{
	uint32_t count = 0, size = 0;
	PCRE2_SPTR table = NULL;

	pcre2_pattern_info(p->re, PCRE2_INFO_NAMECOUNT, &count);
	pcre2_pattern_info(p->re, PCRE2_INFO_NAMEENTRYSIZE, &size);
	pcre2_pattern_info(p->re, PCRE2_INFO_NAMETABLE, &table);
	for (uint32_t i = 0; i < count; i++) {
		const unsigned char *e = table + (size_t)i * size;
		uint32_t group = (uint32_t)e[0] << 8 | e[1];
		const char *name = (const char *)e + 2;

		if (strcmp(name, "uid") == 0)
			p->g_uid = group;
		else if (strcmp(name, "amount") == 0)
			p->g_amount = group;
		else if (strcmp(name, "unit") == 0)
			p->g_unit = group;
		else if (strcmp(name, "subtype") == 0)
			p->g_subtype = group;
		else if (strcmp(name, "type") == 0 || strcmp(name, "order") == 0)
			/* The profile's own: the unit's dimension, the run. */
			return err_set(ERR_INVALID, "pattern '%s': a group may not be named '%s'",
				       pattern, name);
		else {
			p->extra = xrealloc(p->extra, (p->nextra + 1) * sizeof(*p->extra));
			/* Perun's field is spelt with hyphens, which a group
			 * name cannot hold. */
			p->extra[p->nextra++] = (struct rx_extra){
				group, xstrdup(strcmp(name, "structure_unit_size") == 0
						       ? "structure-unit-size"
						       : name)};
		}
	}
	return 0;
}

int rx_scan_add_measure(struct rx_scan *s, const char *pattern, rx_handler handler, void *arg)
{
	struct rx_pat p;
	int ret = compile(pattern, &p);

	if (ret < 0)
		return ret;
	ret = read_names(&p, pattern);
	if (ret < 0) {
		pat_release(&p);
		return ret;
	}
	if (!handler && !p.g_amount) {
		pat_release(&p);
		return err_set(ERR_INVALID, "pattern '%s' has no (?<amount>...) group", pattern);
	}
	p.handler = handler;
	p.arg = arg;
	s->measure = xrealloc(s->measure, (s->nmeasure + 1) * sizeof(*s->measure));
	s->measure[s->nmeasure++] = p;
	return 0;
}

int rx_scan_add_ignore(struct rx_scan *s, const char *pattern)
{
	struct rx_pat p;
	int ret = compile(pattern, &p);

	if (ret < 0)
		return ret;
	s->ignore = xrealloc(s->ignore, (s->nignore + 1) * sizeof(*s->ignore));
	s->ignore[s->nignore++] = p;
	return 0;
}

int rx_pattern_check(const char *pattern, bool measure)
{
	struct rx_scan *s = rx_scan_new();
	int ret = measure ? rx_scan_add_measure(s, pattern, NULL, NULL)
			  : rx_scan_add_ignore(s, pattern);

	rx_scan_free(s);
	return ret;
}

/* ---- matches ---- */

static const char *group_text(const struct rx_match *mt, uint32_t group, size_t *len)
{
	if (!group || mt->ov[2 * group] == PCRE2_UNSET)
		return NULL;
	*len = mt->ov[2 * group + 1] - mt->ov[2 * group];
	return mt->line + mt->ov[2 * group];
}

const char *rx_group(const struct rx_match *mt, const char *name, size_t *len)
{
	int n = pcre2_substring_number_from_name(mt->p->re, (PCRE2_SPTR)name);

	return n > 0 ? group_text(mt, (uint32_t)n, len) : NULL;
}

const char *rx_line(const struct rx_match *mt, size_t *len)
{
	*len = mt->len;
	return mt->line;
}

/* A whole number or decimal in @text (blanks around it allowed). */
static bool parse_num(const char *text, size_t len, double *v)
{
	char tmp[64], *end;
	int64_t i;

	while (len && (*text == ' ' || *text == '\t')) {
		text++;
		len--;
	}
	while (len && (text[len - 1] == ' ' || text[len - 1] == '\t'))
		len--;
	if (!len || len >= sizeof(tmp))
		return false;
	/* JSON's number syntax, which most output is, without strtod. */
	switch (numfmt_parse(text, len, &i, v)) {
	case NUM_INT:
		*v = (double)i;
		return true;
	case NUM_DBL:
		return true;
	default:
		break;
	}
	memcpy(tmp, text, len);
	tmp[len] = 0;
	errno = 0;
	*v = strtod(tmp, &end);
	return end == tmp + len && errno != ERANGE;
}

/* The named groups of a user's pattern as one measurement. */
static int user_match(struct rx_scan *s, const struct rx_match *mt, struct meas *m)
{
	const struct rx_pat *p = mt->p;
	struct meas_rec r = {0};
	size_t alen = 0, n = 0;
	const char *amount = group_text(mt, p->g_amount, &alen);

	if (!amount)
		return err_set(ERR_INVALID, "the amount group took no part in the match");
	if (!parse_num(amount, alen, &r.amount))
		return err_set(ERR_INVALID, "amount '%.*s' is not a number", (int)alen, amount);
	while (alen && (*amount == ' ' || *amount == '\t')) {
		amount++;
		alen--;
	}
	while (alen && (amount[alen - 1] == ' ' || amount[alen - 1] == '\t'))
		alen--;
	r.amount_text = amount;
	r.amount_len = alen;
	r.uid = group_text(mt, p->g_uid, &r.uid_len);
	if (!r.uid) {
		r.uid = s->default_uid ? s->default_uid : "";
		r.uid_len = strlen(r.uid);
	}
	r.unit = group_text(mt, p->g_unit, &r.unit_len);
	r.subtype = group_text(mt, p->g_subtype, &r.subtype_len);
	s->fields = xgrow(s->fields, sizeof(*s->fields), p->nextra, &s->fields_cap);
	for (size_t i = 0; i < p->nextra; i++) {
		struct meas_field *f = &s->fields[n];

		memset(f, 0, sizeof(*f));
		f->name = p->extra[i].field;
		f->text = group_text(mt, p->extra[i].group, &f->len);
		if (!f->text)
			continue;
		f->is_num = parse_num(f->text, f->len, &f->num);
		n++;
	}
	r.fields = s->fields;
	r.nfields = n;
	return meas_add(m, &r) < 0 ? ERR_INVALID : 1;
}

static bool is_blank(const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r' && line[i] != '\f')
			return false;
	return true;
}

static bool ignored(struct rx_scan *s, const char *line, size_t len)
{
	for (size_t i = 0; i < s->nignore; i++)
		if (pcre2_match(s->ignore[i].re, (PCRE2_SPTR)line, len, 0, 0, s->ignore[i].md,
				NULL) >= 0)
			return true;
	return false;
}

/* Every match of @p in the line; adds to *@kept and *@tried. */
static void match_all(struct rx_scan *s, struct rx_pat *p, const char *line, size_t len,
		      struct meas *m, int *kept, int *tried, struct buf *why)
{
	PCRE2_SIZE start = 0;

	while (start <= len &&
	       pcre2_match(p->re, (PCRE2_SPTR)line, len, start, 0, p->md, NULL) >= 0) {
		const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(p->md);
		struct rx_match mt = {p, line, len, ov};
		int ret = p->handler ? p->handler(&mt, m, p->arg) : user_match(s, &mt, m);

		(*tried)++;
		if (ret > 0)
			*kept += ret;
		else if (!why->len)
			buf_adds(why, err_msg());
		if (p->anchored || ov[1] >= len)
			break;
		/* An empty match moves on by a byte, as grep -o does. */
		start = ov[1] > ov[0] ? ov[1] : ov[1] + 1;
	}
}

void rx_scan_line(struct rx_scan *s, const char *line, size_t len, struct meas *m)
{
	struct buf why = BUF_INIT;
	int kept = 0, tried = 0;

	if (len && line[len - 1] == '\r')
		len--;
	if (is_blank(line, len) || ignored(s, line, len)) {
		rx_counts_note(&s->counts, RX_LINE_IGNORED, line, len, NULL);
		return;
	}
	for (size_t i = 0; i < s->nmeasure; i++)
		match_all(s, &s->measure[i], line, len, m, &kept, &tried, &why);
	rx_counts_note(&s->counts,
		       kept    ? RX_LINE_MATCHED
		       : tried ? RX_LINE_REJECTED
			       : RX_LINE_UNMATCHED,
		       line, len, buf_str(&why));
	buf_release(&why);
}

/* ---- feeding ---- */

void rx_scan_feed(struct rx_scan *s, int stream, const char *data, size_t len, struct meas *m)
{
	struct buf *part = &s->partial[stream ? 1 : 0];
	const char *p = data, *end = data + len, *nl;

	if (part->len) {
		nl = memchr(p, '\n', len);
		if (!nl) {
			buf_add(part, p, len);
			if (part->len >= LINE_MAX_BYTES) {
				rx_scan_line(s, part->data, part->len, m);
				buf_reset(part);
			}
			return;
		}
		buf_add(part, p, (size_t)(nl - p));
		rx_scan_line(s, part->data, part->len, m);
		buf_reset(part);
		p = nl + 1;
	}
	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		rx_scan_line(s, p, (size_t)(nl - p), m);
		p = nl + 1;
	}
	if (p < end)
		buf_add(part, p, (size_t)(end - p));
}

void rx_scan_flush(struct rx_scan *s, struct meas *m)
{
	for (int k = 0; k < 2; k++) {
		if (s->partial[k].len)
			rx_scan_line(s, s->partial[k].data, s->partial[k].len, m);
		buf_reset(&s->partial[k]);
	}
}

const struct rx_counts *rx_scan_counts(const struct rx_scan *s)
{
	return &s->counts;
}

void rx_scan_take_counts(struct rx_scan *s, struct rx_counts *to)
{
	rx_counts_add(to, &s->counts);
	rx_counts_release(&s->counts);
}
