/*
 * The text and dictionary rules. Perun's text rules (docs/fuzzing.rst in
 * Perun) aim at what makes text processing slow: long lines, many lines,
 * long and repeated words, runs of whitespace (backtracking regular
 * expressions, hash tables fed colliding keys, sorts fed sorted data).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz/mutate.h"
#include "fuzz/mutate_priv.h"
#include "fuzz/rng.h"
#include "util/common.h"

static bool is_space(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* The line holding @pos: [*s, *e), the newline (if any) included. */
static void line_at(const struct fz_input *in, size_t pos, size_t *s, size_t *e)
{
	size_t a = pos, b = pos;

	while (a > 0 && in->data[a - 1] != '\n')
		a--;
	while (b < in->len && in->data[b] != '\n')
		b++;
	*s = a;
	*e = b < in->len ? b + 1 : b;
}

static bool random_line(struct fz_mut *m, const struct fz_input *in, size_t *s, size_t *e)
{
	if (!in->len)
		return false;
	line_at(in, fz_rng_below(m->rng, in->len), s, e);
	return true;
}

/* The end of a line's text: before its newline. */
static size_t text_end(const struct fz_input *in, size_t s, size_t e)
{
	return e > s && in->data[e - 1] == '\n' ? e - 1 : e;
}

/* A word (a run of non-whitespace) near a random place: [*s, *e). */
static bool random_word(struct fz_mut *m, const struct fz_input *in, size_t *s, size_t *e)
{
	size_t pos, a, b;

	if (!in->len)
		return false;
	pos = fz_rng_below(m->rng, in->len);
	while (pos < in->len && is_space(in->data[pos]))
		pos++;
	if (pos == in->len) {
		while (pos > 0 && is_space(in->data[pos - 1]))
			pos--;
		if (pos == 0)
			return false;
		pos--;
	}
	a = b = pos;
	while (a > 0 && !is_space(in->data[a - 1]))
		a--;
	while (b < in->len && !is_space(in->data[b]))
		b++;
	*s = a;
	*e = b;
	return true;
}

static size_t repeat_count(struct fz_mut *m, size_t limit)
{
	return fz_small_len(m->rng, limit);
}

bool fz_repeat_line(struct fz_mut *m, struct fz_input *in)
{
	size_t s, e, times, done = 0;
	static const uint8_t nl = '\n';

	if (!random_line(m, in, &s, &e))
		return false;
	/* The last line may have no newline: give it one, or the copies
	 * would join it into one long line (double-line's job). */
	if (e == in->len && in->data[e - 1] != '\n') {
		if (!fz_insert(in, m->max, e, &nl, 1))
			return false;
		e++;
		done++;
	}
	times = repeat_count(m, 32);
	for (size_t t = 0; t < times; t++)
		done += fz_insert(in, m->max, e, in->data + s, e - s);
	return done > 0;
}

bool fz_double_line(struct fz_mut *m, struct fz_input *in)
{
	size_t s, e, t;

	if (!random_line(m, in, &s, &e))
		return false;
	t = text_end(in, s, e);
	return t > s && fz_insert(in, m->max, t, in->data + s, t - s) > 0;
}

bool fz_divide_line(struct fz_mut *m, struct fz_input *in)
{
	static const uint8_t nl = '\n';

	return fz_insert(in, m->max, fz_rng_below(m->rng, in->len + 1), &nl, 1) > 0;
}

bool fz_delete_line(struct fz_mut *m, struct fz_input *in)
{
	size_t s, e;

	if (!random_line(m, in, &s, &e))
		return false;
	fz_erase(in, s, e - s);
	return true;
}

/* Swaps the texts (newlines stay) of two different lines. */
bool fz_swap_lines(struct fz_mut *m, struct fz_input *in)
{
	size_t s1, e1, s2, e2, t1, t2, span;
	uint8_t *tmp;

	if (!random_line(m, in, &s1, &e1) || !random_line(m, in, &s2, &e2) || s1 == s2)
		return false;
	if (s2 < s1) {
		size_t x = s1, y = e1;

		s1 = s2, e1 = e2, s2 = x, e2 = y;
	}
	t1 = text_end(in, s1, e1);
	t2 = text_end(in, s2, e2);
	span = t2 - s1;
	tmp = xmalloc(span + 1);
	/* second's text, what lies between, first's text */
	memcpy(tmp, in->data + s2, t2 - s2);
	memcpy(tmp + (t2 - s2), in->data + t1, s2 - t1);
	memcpy(tmp + (t2 - s2) + (s2 - t1), in->data + s1, t1 - s1);
	memcpy(in->data + s1, tmp, span);
	free(tmp);
	return true;
}

/* The byte after a word if it separates words, else a space. */
static uint8_t separator(const struct fz_input *in, size_t e)
{
	return e < in->len && is_space(in->data[e]) ? in->data[e] : ' ';
}

bool fz_repeat_word(struct fz_mut *m, struct fz_input *in)
{
	size_t s, e, times, done = 0;
	uint8_t *w;
	size_t n;

	if (!random_word(m, in, &s, &e))
		return false;
	n = e - s + 1;
	w = xmalloc(n);
	w[0] = separator(in, e);
	memcpy(w + 1, in->data + s, e - s);
	times = repeat_count(m, 32);
	for (size_t t = 0; t < times; t++)
		done += fz_insert(in, m->max, e, w, n);
	free(w);
	return done > 0;
}

static uint8_t other_printable(struct fz_mut *m, uint8_t old)
{
	/* 0x21..0x7e: printable and not a space, so words stay words. */
	uint8_t c = (uint8_t)(0x21 + fz_rng_below(m->rng, 0x7e - 0x21));

	return c >= old ? (uint8_t)(c + 1) : c;
}

/*
 * The word copied next to itself 1 to 32 times, each copy with one
 * character changed: distinct words that share most of their bytes, as
 * keys that collide in a weak hash do (Perun's hash-table case study).
 */
bool fz_vary_word(struct fz_mut *m, struct fz_input *in)
{
	size_t s, e, n, times, done = 0, at;
	uint8_t *w;

	if (!random_word(m, in, &s, &e))
		return false;
	n = e - s + 1;
	w = xmalloc(n);
	w[0] = separator(in, e);
	times = repeat_count(m, 32);
	for (size_t t = 0; t < times; t++) {
		memcpy(w + 1, in->data + s, e - s);
		at = 1 + fz_rng_below(m->rng, e - s);
		w[at] = other_printable(m, w[at]);
		done += fz_insert(in, m->max, e, w, n);
	}
	free(w);
	return done > 0;
}

bool fz_delete_word(struct fz_mut *m, struct fz_input *in)
{
	size_t s, e;

	if (!random_word(m, in, &s, &e))
		return false;
	if (e < in->len && in->data[e] == ' ')
		e++;
	fz_erase(in, s, e - s);
	return true;
}

bool fz_bloat_words(struct fz_mut *m, struct fz_input *in)
{
	size_t s, e, t, w;

	if (!random_line(m, in, &s, &e))
		return false;
	t = text_end(in, s, e);
	w = s;
	for (size_t r = s; r < t; r++)
		if (!is_space(in->data[r]))
			in->data[w++] = in->data[r];
	if (w == t)
		return false;
	fz_erase(in, w, t - w);
	return true;
}

bool fz_insert_space(struct fz_mut *m, struct fz_input *in)
{
	/* Mostly short runs; Perun's 100 to 1000 sometimes. */
	size_t n = fz_rng_below(m->rng, 4) ? fz_rng_range(m->rng, 1, 64)
					   : fz_rng_range(m->rng, 100, 1000);
	uint8_t *sp = xmalloc(n);
	size_t done;

	memset(sp, ' ', n);
	done = fz_insert(in, m->max, fz_rng_below(m->rng, in->len + 1), sp, n);
	free(sp);
	return done > 0;
}

bool fz_repeat_space(struct fz_mut *m, struct fz_input *in)
{
	static const uint8_t nine[9] = "         ";
	size_t s, e, done = 0;

	if (!random_line(m, in, &s, &e))
		return false;
	/* From the end, so positions before stay valid. */
	for (size_t i = e; i > s; i--)
		if (in->data[i - 1] == ' ')
			done += fz_insert(in, m->max, i, nine, sizeof(nine));
	return done > 0;
}

struct span {
	const uint8_t *p;
	size_t n;
};

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	size_t n = x->n < y->n ? x->n : y->n;
	int c = memcmp(x->p, y->p, n);

	return c ? c : (x->n > y->n) - (x->n < y->n);
}

static int span_rcmp(const void *a, const void *b)
{
	return span_cmp(b, a);
}

/* A line's words sorted and joined by single spaces (Perun's sort rules). */
static bool sort_words(struct fz_mut *m, struct fz_input *in, bool reverse)
{
	size_t s, e, t, nw = 0, cap = 0, w = 0;
	struct span *v = NULL;
	uint8_t *out;
	bool changed;

	if (!random_line(m, in, &s, &e))
		return false;
	t = text_end(in, s, e);
	for (size_t i = s; i < t;) {
		size_t j = i;

		while (j < t && !is_space(in->data[j]))
			j++;
		if (j > i) {
			v = xgrow(v, sizeof(*v), nw + 1, &cap);
			v[nw++] = (struct span){in->data + i, j - i};
		}
		i = j + (j < t);
	}
	if (nw < 2) {
		free(v);
		return false;
	}
	qsort(v, nw, sizeof(*v), reverse ? span_rcmp : span_cmp);
	out = xmalloc(t - s);
	for (size_t k = 0; k < nw; k++) {
		if (k)
			out[w++] = ' ';
		memcpy(out + w, v[k].p, v[k].n);
		w += v[k].n;
	}
	free(v);
	/* Words joined by one space never take more room than they had. */
	changed = w != t - s || memcmp(out, in->data + s, w) != 0;
	memcpy(in->data + s, out, w);
	free(out);
	fz_erase(in, s + w, t - s - w);
	return changed;
}

bool fz_sort_line(struct fz_mut *m, struct fz_input *in)
{
	return sort_words(m, in, false);
}

bool fz_reverse_line(struct fz_mut *m, struct fz_input *in)
{
	return sort_words(m, in, true);
}

bool fz_change_char(struct fz_mut *m, struct fz_input *in)
{
	size_t pos;

	if (!in->len)
		return false;
	pos = fz_rng_below(m->rng, in->len);
	in->data[pos] = other_printable(m, in->data[pos]);
	return true;
}

/* ---- dictionary ---- */

static bool pick_token(struct fz_mut *m, const uint8_t **t, size_t *n)
{
	size_t k;

	if (!m->dict || !m->dict->n)
		return false;
	k = fz_rng_below(m->rng, m->dict->n);
	*t = m->dict->tok[k];
	*n = m->dict->len[k];
	return *n > 0;
}

/* A random place, half the time moved to the start of its word, where a
 * token of a structured text is most likely to make sense. */
static size_t token_place(struct fz_mut *m, const struct fz_input *in)
{
	size_t pos = fz_rng_below(m->rng, in->len + 1);

	if (fz_rng_below(m->rng, 2))
		while (pos > 0 && pos < in->len && !is_space(in->data[pos - 1]))
			pos--;
	return pos;
}

bool fz_dict_insert(struct fz_mut *m, struct fz_input *in)
{
	const uint8_t *t;
	size_t n;

	return pick_token(m, &t, &n) && fz_insert(in, m->max, token_place(m, in), t, n) > 0;
}

bool fz_dict_overwrite(struct fz_mut *m, struct fz_input *in)
{
	const uint8_t *t;
	size_t n, pos, over;

	if (!pick_token(m, &t, &n))
		return false;
	pos = token_place(m, in);
	over = n < in->len - pos ? n : in->len - pos;
	memcpy(in->data + pos, t, over);
	fz_insert(in, m->max, pos + over, t + over, n - over);
	return true;
}

bool fz_dict_repeat(struct fz_mut *m, struct fz_input *in)
{
	const uint8_t *t;
	size_t n, times, pos, done = 0;

	if (!pick_token(m, &t, &n))
		return false;
	times = fz_rng_range(m->rng, 2, 64);
	pos = token_place(m, in);
	for (size_t k = 0; k < times; k++)
		done += fz_insert(in, m->max, pos, t, n);
	return done > 0;
}
