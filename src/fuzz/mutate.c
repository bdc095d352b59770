/* The binary mutation rules, the rule table and the shared helpers. */
#include <stdlib.h>
#include <string.h>

#include "fuzz/mutate.h"
#include "fuzz/mutate_priv.h"
#include "fuzz/rng.h"
#include "util/common.h"

/* ---- inputs ---- */

void fz_input_init(struct fz_input *in, const uint8_t *data, size_t len, size_t cap)
{
	in->cap = cap > len ? cap : len;
	/* +1: never a zero-sized allocation, and room to read one past. */
	in->data = xmalloc(in->cap + 1);
	fz_input_set(in, data, len);
}

void fz_input_set(struct fz_input *in, const uint8_t *data, size_t len)
{
	if (len > in->cap)
		len = in->cap;
	if (len)
		memmove(in->data, data, len);
	in->len = len;
}

void fz_input_release(struct fz_input *in)
{
	free(in->data);
	in->data = NULL;
	in->len = in->cap = 0;
}

size_t fz_insert(struct fz_input *in, size_t max, size_t pos, const uint8_t *src, size_t n)
{
	uint8_t *copy = NULL;

	if (max > in->cap)
		max = in->cap;
	if (pos > in->len)
		pos = in->len;
	if (pos >= max)
		return 0;
	if (n > max - pos)
		n = max - pos;
	if (n == 0)
		return 0;
	/* The source may be part of the input, which the move below shifts. */
	if (src >= in->data && src < in->data + in->len) {
		copy = xmalloc(n);
		memcpy(copy, src, n);
		src = copy;
	}
	/*
	 * At the limit the tail makes room: an input that grew as long as it
	 * may still changes its make-up, which is where a cost that grows
	 * faster than the length is found.
	 */
	if (in->len + n > max)
		in->len = max - n;
	memmove(in->data + pos + n, in->data + pos, in->len - pos);
	memcpy(in->data + pos, src, n);
	in->len += n;
	free(copy);
	return n;
}

void fz_erase(struct fz_input *in, size_t pos, size_t n)
{
	if (pos >= in->len)
		return;
	if (n > in->len - pos)
		n = in->len - pos;
	memmove(in->data + pos, in->data + pos + n, in->len - pos - n);
	in->len -= n;
}

size_t fz_small_len(struct fz_rng *r, size_t limit)
{
	/* Up to 8 mostly, up to 128 sometimes, up to the limit rarely. */
	size_t cap = fz_rng_below(r, 10) < 7 ? 8 : fz_rng_below(r, 10) < 9 ? 128 : limit;

	if (cap > limit)
		cap = limit;
	return cap ? fz_rng_range(r, 1, cap) : 0;
}

bool fz_is_text(const uint8_t *data, size_t len)
{
	size_t bad = 0;

	for (size_t i = 0; i < len; i++) {
		uint8_t c = data[i];

		if (!(c >= 0x20 && c < 0x7f) && c != '\n' && c != '\r' && c != '\t' && c < 0x80)
			bad++;
	}
	/* As Perun decides: a few control bytes still make a text. */
	return len == 0 || bad * 20 < len;
}

/* ---- binary rules ---- */

static bool flip_bit(struct fz_mut *m, struct fz_input *in)
{
	size_t bit;

	if (!in->len)
		return false;
	bit = fz_rng_below(m->rng, in->len * 8);
	in->data[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	return true;
}

static bool random_byte(struct fz_mut *m, struct fz_input *in)
{
	size_t pos;
	uint8_t old;

	if (!in->len)
		return false;
	pos = fz_rng_below(m->rng, in->len);
	old = in->data[pos];
	/* Never the same value: a rule that reports a change makes one. */
	in->data[pos] = (uint8_t)(old + fz_rng_range(m->rng, 1, 255));
	return true;
}

static const uint8_t special[] = {0, 1, 0x7f, 0x80, 0xff, '\n', ' ', '0', '9', '-', '%', '"'};

static bool special_byte(struct fz_mut *m, struct fz_input *in)
{
	if (!in->len)
		return false;
	in->data[fz_rng_below(m->rng, in->len)] = special[fz_rng_below(m->rng, sizeof(special))];
	return true;
}

static bool arith_byte(struct fz_mut *m, struct fz_input *in)
{
	size_t pos;
	int d;

	if (!in->len)
		return false;
	pos = fz_rng_below(m->rng, in->len);
	d = (int)fz_rng_range(m->rng, 1, 35);
	in->data[pos] = (uint8_t)(in->data[pos] + (fz_rng_below(m->rng, 2) ? d : -d));
	return true;
}

static bool insert_bytes(struct fz_mut *m, struct fz_input *in)
{
	uint8_t b[16];
	size_t n = fz_rng_range(m->rng, 1, sizeof(b));

	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)fz_rng_next(m->rng);
	return fz_insert(in, m->max, fz_rng_below(m->rng, in->len + 1), b, n) > 0;
}

static bool insert_zero(struct fz_mut *m, struct fz_input *in)
{
	static const uint8_t zero;

	return fz_insert(in, m->max, fz_rng_below(m->rng, in->len + 1), &zero, 1) > 0;
}

static bool delete_bytes(struct fz_mut *m, struct fz_input *in)
{
	size_t pos, n;

	if (!in->len)
		return false;
	pos = fz_rng_below(m->rng, in->len);
	n = fz_small_len(m->rng, in->len - pos);
	fz_erase(in, pos, n);
	return true;
}

static bool remove_zero(struct fz_mut *m, struct fz_input *in)
{
	size_t start, i;

	if (!in->len)
		return false;
	/* The first zero byte from a random place on, wrapping round. */
	start = fz_rng_below(m->rng, in->len);
	for (i = 0; i < in->len; i++) {
		size_t pos = (start + i) % in->len;

		if (in->data[pos] == 0) {
			fz_erase(in, pos, 1);
			return true;
		}
	}
	return false;
}

static bool swap_bytes(struct fz_mut *m, struct fz_input *in)
{
	size_t a, b;
	uint8_t t;

	if (in->len < 2)
		return false;
	a = fz_rng_below(m->rng, in->len);
	b = fz_rng_below(m->rng, in->len);
	if (in->data[a] == in->data[b])
		return false;
	t = in->data[a];
	in->data[a] = in->data[b];
	in->data[b] = t;
	return true;
}

/* A chunk repeated right after itself, 1 to 16 times: runs of the same
 * data are what many slow paths (backtracking, collisions) feed on. */
static bool dup_chunk(struct fz_mut *m, struct fz_input *in)
{
	size_t pos, n, times, done = 0;

	if (!in->len)
		return false;
	pos = fz_rng_below(m->rng, in->len);
	n = fz_small_len(m->rng, in->len - pos);
	times = fz_rng_range(m->rng, 1, 16);
	for (size_t t = 0; t < times; t++)
		done += fz_insert(in, m->max, pos + n, in->data + pos, n);
	return done > 0;
}

static bool copy_chunk(struct fz_mut *m, struct fz_input *in)
{
	size_t from, to, n;

	if (in->len < 2)
		return false;
	from = fz_rng_below(m->rng, in->len);
	to = fz_rng_below(m->rng, in->len);
	n = fz_small_len(m->rng, in->len - (from > to ? from : to));
	if (from == to)
		return false;
	memmove(in->data + to, in->data + from, n);
	return true;
}

static bool swap_chunks(struct fz_mut *m, struct fz_input *in)
{
	size_t a, b, n;
	uint8_t *tmp;

	if (in->len < 2)
		return false;
	n = fz_small_len(m->rng, in->len / 2);
	a = fz_rng_below(m->rng, in->len - 2 * n + 1);
	b = fz_rng_range(m->rng, a + n, in->len - n);
	if (memcmp(in->data + a, in->data + b, n) == 0)
		return false;
	tmp = xmalloc(n);
	memcpy(tmp, in->data + a, n);
	memmove(in->data + a, in->data + b, n);
	memcpy(in->data + b, tmp, n);
	free(tmp);
	return true;
}

/* A piece of another input, inserted: AFL's splicing, in small. */
static bool splice(struct fz_mut *m, struct fz_input *in)
{
	size_t from, n;

	if (!m->donor || !m->donor_len)
		return false;
	from = fz_rng_below(m->rng, m->donor_len);
	n = fz_small_len(m->rng, m->donor_len - from);
	return fz_insert(in, m->max, fz_rng_below(m->rng, in->len + 1), m->donor + from, n) > 0;
}

/* clang-format off */
static const struct fz_rule rules[] = {
	{"flip-bit", FZ_BINARY, flip_bit, "flips one bit"},
	{"random-byte", FZ_BINARY, random_byte, "sets a byte to another value"},
	{"special-byte", FZ_BINARY, special_byte, "sets a byte to 0, 0xff, a newline, a digit..."},
	{"arith-byte", FZ_BINARY, arith_byte, "adds or subtracts up to 35 from a byte"},
	{"insert-bytes", FZ_BINARY, insert_bytes, "inserts 1 to 16 random bytes"},
	{"insert-zero", FZ_BINARY, insert_zero, "inserts a zero byte"},
	{"delete-bytes", FZ_BINARY, delete_bytes, "deletes a run of bytes"},
	{"remove-zero", FZ_BINARY, remove_zero, "removes a zero byte"},
	{"swap-bytes", FZ_BINARY, swap_bytes, "swaps two bytes"},
	{"dup-chunk", FZ_BINARY, dup_chunk, "repeats a chunk 1 to 16 times in place"},
	{"copy-chunk", FZ_BINARY, copy_chunk, "copies a chunk over another place"},
	{"swap-chunks", FZ_BINARY, swap_chunks, "swaps two chunks"},
	{"splice", FZ_BINARY, splice, "inserts a piece of another corpus input"},
	{"repeat-line", FZ_TEXT, fz_repeat_line, "repeats a line 1 to 32 times"},
	{"double-line", FZ_TEXT, fz_double_line, "doubles a line's text in place"},
	{"divide-line", FZ_TEXT, fz_divide_line, "splits a line in two"},
	{"delete-line", FZ_TEXT, fz_delete_line, "deletes a line"},
	{"swap-lines", FZ_TEXT, fz_swap_lines, "swaps two lines"},
	{"repeat-word", FZ_TEXT, fz_repeat_word, "repeats a word 1 to 32 times"},
	{"vary-word", FZ_TEXT, fz_vary_word, "copies a word 1 to 32 times, each copy with one letter changed"},
	{"delete-word", FZ_TEXT, fz_delete_word, "deletes a word"},
	{"bloat-words", FZ_TEXT, fz_bloat_words, "joins a line's words (removes its whitespace)"},
	{"insert-space", FZ_TEXT, fz_insert_space, "inserts a run of spaces"},
	{"repeat-space", FZ_TEXT, fz_repeat_space, "makes each space of a line ten"},
	{"sort-line", FZ_TEXT, fz_sort_line, "sorts a line's words"},
	{"reverse-line", FZ_TEXT, fz_reverse_line, "sorts a line's words in reverse"},
	{"change-char", FZ_TEXT, fz_change_char, "sets a character to another printable one"},
	{"dict-insert", FZ_DICT, fz_dict_insert, "inserts a dictionary token"},
	{"dict-overwrite", FZ_DICT, fz_dict_overwrite, "writes a dictionary token over the input"},
	{"dict-repeat", FZ_DICT, fz_dict_repeat, "inserts a dictionary token 2 to 64 times"},
};
/* clang-format on */

const struct fz_rule *fz_rules(size_t *n)
{
	*n = ARRAY_SIZE(rules);
	return rules;
}

int fz_rule_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(rules); i++)
		if (strcmp(rules[i].name, name) == 0)
			return (int)i;
	return -1;
}
