/*
 * The tokenizer's fast path over a list of flat resource objects (one
 * dict of scalars per measurement, the time collector's layout): a whole
 * object per call, its keys matched against the previous object's.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "profile/json_sax.h"
#include "profile/json_sax_priv.h"
#include "profile/numfmt.h"
#include "util/common.h"

/* Bytes kept unscanned at the buffer's end: the loads below read up to 32
 * bytes past where they look. */
#define FLAT_MARGIN 32
/* Read more first when less than this is buffered (larger than any
 * resource dict worth the fast path). */
#define FLAT_WANT 4096

static const double pow10_f64[9] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};

/* Where the plain run of string bytes at @q ends: at a '"', a backslash or
 * a control character, eight bytes at a time. */
static inline const char *str_end(const char *q, const char *lim)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;

	for (; q < lim; q += 8) {
		uint64_t x = load8(q), qt = x ^ (ones * '"'), bs = x ^ (ones * '\\');
		uint64_t hit = ((qt - ones) & ~qt) | ((bs - ones) & ~bs) | ((x - ones * 0x20) & ~x);

		hit &= highs;
		if (hit)
			return q + __builtin_ctzll(hit) / 8;
	}
	return lim;
}

struct flat {
	struct jsax *j;
	const char *lim;
	uint64_t line;
	int64_t line_start;
};

static inline const char *flat_ws(struct flat *f, const char *q)
{
	if ((unsigned char)*q > ' ')
		return q;
	while (q < f->lim && (unsigned char)*q <= ' ') {
		if (*q == '\n') {
			f->line++;
			f->line_start = offset_of(f->j, q + 1);
		} else if (*q != ' ' && *q != '\t' && *q != '\r') {
			return f->lim;
		}
		q++;
	}
	return q;
}

/* A number in any other form (exponents, long digits) ending at the first
 * byte that cannot be part of one. */
static __attribute__((noinline)) const char *flat_number_slow(struct flat *f, const char *q,
							      struct jmember *m)
{
	const char *e;
	int kind;

	for (e = q; e < f->lim && ((*e >= '0' && *e <= '9') || *e == '-' || *e == '+' ||
				   *e == '.' || *e == 'e' || *e == 'E');
	     e++)
		;
	if (e >= f->lim)
		return NULL;
	kind = numfmt_parse(q, (size_t)(e - q), &m->i, &m->d);
	if (kind == NUM_BAD)
		return NULL;
	m->ev = kind == NUM_INT ? JEV_INT : JEV_DBL;
	return e;
}

/* The common numbers in one pass: an integer of up to 7 digits or a plain
 * decimal "I.F" of up to 7 + 7, exactly rounded (the digits fit in 2^53
 * and the divisor is exact); NULL for anything else. */
static inline const char *short_num_at(const char *q, struct jmember *m)
{
	bool neg = *q == '-';
	uint64_t ip, fp;
	size_t ni, nf;
	double v;

	q += neg;
	ni = digits8(q, &ip);
	if (ni == 0 || ni == 8 || (ni > 1 && *q == '0'))
		return NULL;
	q += ni;
	if (*q != '.') {
		if (*q == 'e' || *q == 'E')
			return NULL;
		m->ev = JEV_INT;
		m->i = neg ? -(int64_t)ip : (int64_t)ip;
		return q;
	}
	nf = digits8(q + 1, &fp);
	if (nf == 0 || nf == 8)
		return NULL;
	q += 1 + nf;
	if (*q == 'e' || *q == 'E')
		return NULL;
	v = (double)(ip * pow10_u64[nf] + fp) / pow10_f64[nf];
	m->ev = JEV_DBL;
	m->d = neg ? -v : v;
	return q;
}

/* A number at @q into @m; NULL when it is not one. */
static inline const char *flat_number(struct flat *f, const char *q, struct jmember *m)
{
	const char *e = short_num_at(q, m);

	if (e)
		;
	else if ((e = int_at(q, &m->i)))
		m->ev = JEV_INT;
	else if (!(e = flat_number_slow(f, q, m)))
		return NULL;
	m->raw = q;
	m->rawlen = (size_t)(e - q);
	return e;
}

static const char *flat_word(struct jmember *m, const char *q, const char *word, int ev)
{
	size_t n = strlen(word);

	m->ev = ev;
	m->raw = q;
	m->rawlen = n;
	return memcmp(q, word, n) == 0 ? q + n : NULL;
}

/* The scalar value at @q into @m; NULL when it is not a flat one. */
static const char *flat_value(struct flat *f, const char *q, struct jmember *m)
{
	const char *e;

	switch (*q) {
	case '"':
		e = str_end(q + 1, f->lim);
		if (e >= f->lim || *e != '"')
			return NULL;
		m->ev = JEV_STR;
		m->raw = q + 1;
		m->rawlen = (size_t)(e - q - 1);
		return e + 1;
	case 't':
		return flat_word(m, q, "true", JEV_TRUE);
	case 'f':
		return flat_word(m, q, "false", JEV_FALSE);
	case 'n':
		return flat_word(m, q, "null", JEV_NULL);
	default:
		if (*q == '-' || (*q >= '0' && *q <= '9'))
			return flat_number(f, q, m);
		return NULL;
	}
}

/* The object's members from @q (after its '{'); the end past its '}', or
 * NULL when it is not flat. */
static const char *flat_members(struct flat *f, const char *q, struct jmember *m, size_t max,
				size_t *n)
{
	const char *e;

	*n = 0;
	q = flat_ws(f, q);
	if (q < f->lim && *q == '}')
		return q + 1;
	for (;;) {
		if (q >= f->lim || *q != '"' || *n == max)
			return NULL;
		e = str_end(q + 1, f->lim);
		if (e >= f->lim || *e != '"')
			return NULL;
		m[*n].key = q + 1;
		m[*n].klen = (size_t)(e - q - 1);
		q = flat_ws(f, e + 1);
		if (q >= f->lim || *q != ':')
			return NULL;
		q = flat_ws(f, q + 1);
		if (q >= f->lim || !(q = flat_value(f, q, &m[*n])))
			return NULL;
		(*n)++;
		q = flat_ws(f, q);
		if (q >= f->lim)
			return NULL;
		if (*q == '}')
			return q + 1;
		if (*q != ',')
			return NULL;
		q = flat_ws(f, q + 1);
	}
}

/* The text around the values of the last flat object read. */
#define TPL_MAX 16
#define TPL_TEXT 480

struct jtpl {
	size_t n;		   /* members; 0 when there is no template */
	uint16_t off[TPL_MAX + 2]; /* segment k is text[off[k]..off[k+1]) */
	uint16_t key[TPL_MAX];	   /* member k's key is at text + key[k] */
	uint16_t klen[TPL_MAX];
	/* Segments of up to 16 bytes as two words and the masks of their
	 * bytes, for a compare without a loop. */
	uint64_t word[TPL_MAX + 1][2], mask[TPL_MAX + 1][2];
	char text[TPL_TEXT + 8]; /* + 8: compared a word at a time */
};

/* Fills in the words of segment @k (of @len bytes at @a). */
static void tpl_words(struct jtpl *t, size_t k, const char *a, size_t len)
{
	char w[16] = {0}, m[16] = {0};

	if (len > 16)
		return;
	memcpy(w, a, len);
	memset(m, 0xff, len);
	memcpy(t->word[k], w, 16);
	memcpy(t->mask[k], m, 16);
}

/* Where member @m's value starts and ends in the input. */
static const char *value_start(const struct jmember *m)
{
	return m->ev == JEV_STR ? m->raw - 1 : m->raw;
}

static const char *value_end(const struct jmember *m)
{
	return m->raw + m->rawlen + (m->ev == JEV_STR);
}

/* Remembers the text between the values of the object just read (its
 * members @m, its text [from, to)), when it is short and on one line. */
static void tpl_build(struct jsax *j, const char *from, const char *to, const struct jmember *m,
		      size_t n)
{
	struct jtpl *t = j->tpl;
	size_t k, len = 0;

	if (!t)
		t = j->tpl = xcalloc(1, sizeof(*t));
	t->n = 0;
	if (n == 0 || n > TPL_MAX)
		return;
	for (k = 0; k <= n; k++) {
		const char *a = k ? value_end(&m[k - 1]) : from,
			   *b = k < n ? value_start(&m[k]) : to;
		size_t seg = (size_t)(b - a);

		if (len + seg > TPL_TEXT || memchr(a, '\n', seg))
			return;
		t->off[k] = (uint16_t)len;
		memcpy(t->text + len, a, seg);
		tpl_words(t, k, a, seg);
		if (k < n) {
			t->key[k] = (uint16_t)(len + (size_t)(m[k].key - a));
			t->klen[k] = (uint16_t)m[k].klen;
		}
		len += seg;
	}
	t->off[n + 1] = (uint16_t)len;
	t->n = n;
}

/* memcmp(a, b, n) == 0 for the short runs of a template; both may be read
 * up to 8 bytes past @n. */
static inline bool same_bytes(const char *a, const char *b, size_t n)
{
	for (; n >= 8; n -= 8, a += 8, b += 8)
		if (load8(a) != load8(b))
			return false;
	if (!n)
		return true;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return ((load8(a) ^ load8(b)) & ((1ULL << (8 * n)) - 1)) == 0;
#else
	return memcmp(a, b, n) == 0;
#endif
}

/* The object at @q read against the template; NULL when it differs. */
/* Whether the input at @q starts with segment @k (@len bytes). */
static inline bool tpl_seg(const struct jtpl *t, size_t k, const char *q, size_t len)
{
	if (len > 16)
		return same_bytes(q, t->text + t->off[k], len);
	return (((load8(q) ^ t->word[k][0]) & t->mask[k][0]) |
		((load8(q + 8) ^ t->word[k][1]) & t->mask[k][1])) == 0;
}

static const char *tpl_match(struct flat *f, const struct jtpl *t, const char *q, struct jmember *m)
{
	size_t k;

	for (k = 0;; k++) {
		size_t len = (size_t)(t->off[k + 1] - t->off[k]);
		const char *e;

		if (q + len >= f->lim || !tpl_seg(t, k, q, len))
			return NULL;
		q += len;
		if (k == t->n)
			return q;
		m[k].key = t->text + t->key[k];
		m[k].klen = t->klen[k];
		if (*q != '"') {
			if (!(q = flat_value(f, q, &m[k])))
				return NULL;
			continue;
		}
		/* Strings inline: most persistent values are. */
		e = str_end(q + 1, f->lim);
		if (e >= f->lim || *e != '"')
			return NULL;
		m[k].ev = JEV_STR;
		m[k].raw = q + 1;
		m[k].rawlen = (size_t)(e - q - 1);
		q = e + 1;
	}
}

/* Where the next array element starts when it is an object (past its
 * '{'); NULL when it is not, or the array ends. */
static const char *flat_element(struct flat *f, const char *q)
{
	struct jsax *j = f->j;

	if (!j->depth || j->stack[j->depth - 1] != '[')
		return NULL;
	if (j->state == ST_AFTER) {
		q = flat_ws(f, q);
		if (q >= f->lim || *q != ',')
			return NULL;
		q++;
	} else if (j->state != ST_ARR_FIRST) {
		return NULL;
	}
	q = flat_ws(f, q);
	return q < f->lim && *q == '{' ? q + 1 : NULL;
}

int jsax_flat_next(struct jsax *j, struct jmember *m, size_t max, size_t *n, bool *same_keys)
{
	struct flat f = {j, NULL, j->line, j->line_start};
	const char *q, *e = NULL;
	int ret;

	if (!j->eof && j->end - j->p < FLAT_WANT && (ret = jsax_refill(j)) < 0)
		return ret;
	if (j->end - j->p <= FLAT_MARGIN)
		return 0;
	f.lim = j->end - FLAT_MARGIN;
	if (!(q = flat_element(&f, j->p)))
		return 0;
	*same_keys = j->tpl && j->tpl->n && j->tpl->n <= max &&
		     (e = tpl_match(&f, j->tpl, q, m)) != NULL;
	if (*same_keys) {
		*n = j->tpl->n;
	} else {
		e = flat_members(&f, q, m, max, n);
		if (!e)
			return 0;
		tpl_build(j, q, e, m, *n);
	}
	j->tok = q - 1;
	j->p = e;
	j->line = f.line;
	j->line_start = f.line_start;
	j->state = ST_AFTER;
	return 1;
}
