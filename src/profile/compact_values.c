/*
 * A column's values in the compact form: the integer encodings, tried on
 * a sample of the column and the smallest kept, doubles as scaled
 * decimals where they come back bit for bit, and ENC_GROUPED, the values
 * of each resource type together. docs/profile-format.md specifies them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "profile/compact_enc_priv.h"
#include "profile/compact_priv.h"
#include "profile/profile_priv.h"
#include "util/buf.h"
#include "util/common.h"

/* ---- a column's cells as integers ---- */

enum src_mode { SRC_I64, SRC_ID, SRC_DEC, SRC_BITS, SRC_TYPE };

struct src {
	const struct column *c; /* NULL: the resources' types */
	const uint8_t *absent;	/* c->absent, rows below @absent_cap */
	size_t absent_cap;
	const uint32_t *types;
	const uint32_t *group; /* the resources' types, for ENC_GROUPED; NULL: none */
	size_t ngroups;
	const uint32_t *remap;
	size_t len;
	enum src_mode mode;
	double scale; /* SRC_DEC: 10^d */
};

/* Rows below s->len only: col_has() without its call and checks. */
static inline bool src_has(const struct src *s, size_t r)
{
	return !(r < s->absent_cap && s->absent[r]);
}

/* The nearest integer to @x, |x| < 2^51, ties to even: adding and taking
 * away 1.5 * 2^52 leaves no bits below the unit. llround() is a call
 * per value; whichever rounding is used, decimal_ok() checks its result. */
static inline int64_t round_int(double x)
{
	const double magic = 6755399441055744.0;

	return (int64_t)((x + magic) - magic);
}

static inline int64_t src_int(const struct src *s, size_t r)
{
	switch (s->mode) {
	case SRC_I64:
		return col_i64(s->c, r);
	case SRC_ID:
		return s->remap[s->c->v.id[r]];
	case SRC_DEC:
		return round_int(s->c->v.f64[r] * s->scale);
	case SRC_BITS: {
		int64_t bits;

		memcpy(&bits, &s->c->v.f64[r], 8);
		return bits;
	}
	default:
		return s->types[r];
	}
}

static inline int64_t wrap_sub(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

struct stats {
	size_t n;	/* present values */
	bool same;	/* all equal */
	int64_t first;	/* the first value */
	uint64_t maxzz; /* the largest zigzagged delta */
};

static void int_stats(const struct src *s, size_t to, struct stats *st)
{
	int64_t prev = 0;

	memset(st, 0, sizeof(*st));
	st->same = true;
	for (size_t r = 0; r < to; r++) {
		int64_t v;
		uint64_t z;

		if (!src_has(s, r))
			continue;
		v = src_int(s, r);
		if (!st->n)
			st->first = v;
		else if (v != st->first)
			st->same = false;
		z = zz_enc(wrap_sub(v, prev));
		if (z > st->maxzz)
			st->maxzz = z;
		prev = v;
		st->n++;
	}
}

static unsigned width_of(uint64_t v)
{
	unsigned w = 1;

	while (w < 8 && (v >> (8 * w)))
		w++;
	return w;
}

static inline struct ref_slot *ref_slot_of(struct enc *e, int64_t v)
{
	return &e->refs[((uint64_t)v * 0x9E3779B97F4A7C15ULL) >> (64 - e->ref_bits)];
}

/* An empty cache sized for @rows values: a table of the largest size
 * (16 MiB), cleared for each trial of a short column, cost more than
 * encoding it, and its memory more than the profile's. */
static void refs_reset(struct enc *e, size_t rows)
{
	unsigned bits = 10;
	size_t n;

	while (bits < REF_BITS_MAX && ((size_t)1 << bits) < 2 * rows)
		bits++;
	n = (size_t)1 << bits;
	if (bits > e->ref_cap_bits || !e->refs) {
		free(e->refs);
		e->refs = xmalloc(n * sizeof(*e->refs));
		e->ref_cap_bits = bits;
	}
	e->ref_bits = bits;
	memset(e->refs, 0, n * sizeof(*e->refs));
}

/* The bytes @v needs, 0 for 0. */
static unsigned bytes_for(uint64_t v)
{
	unsigned w = 0;

	while (w < 8 && (v >> (8 * w)))
		w++;
	return w;
}

/* One value of ENC_GROUPED: its kind and the number it is written as. */
struct gtok {
	uint32_t group;
	int kind;
	uint64_t num;
};

/*
 * ENC_GROUPED's tokens over rows [0, to). A value seen before (and not
 * the previous one of its group) is named by the set its last occurrence
 * is marked in and how many rows of that set were marked since; the sets
 * go by the parity of the occurrences, so that in a memory profile an
 * address's release finds it among the live blocks and its reuse among
 * the released ones. Any other value is its delta from the previous one
 * of its group. Without @fw only a bound of each reference (its row
 * distance) is given, which is all the first pass needs.
 */
static void grouped_pass(struct enc *e, const struct src *s, size_t to, struct fenwick *fw,
			 int64_t *prev, void (*fn)(const struct gtok *t, void *arg), void *arg)
{
	refs_reset(e, to);
	memset(prev, 0, s->ngroups * sizeof(*prev));
	for (size_t r = 0; r < to; r++) {
		struct gtok t = {0, GK_DELTA, 0};
		struct ref_slot *slot;
		int64_t v;

		if (!src_has(s, r))
			continue;
		v = src_int(s, r);
		t.group = s->group[r];
		slot = ref_slot_of(e, v);
		if ((e->gflags & GF_REFS) && slot->row1 && slot->v == (uint64_t)v &&
		    v != prev[t.group]) {
			size_t p = slot->row1 - 1;
			int other = slot->set == GK_ODD ? GK_EVEN : GK_ODD;

			t.kind = slot->set;
			if (fw) {
				struct fenwick *f = &fw[t.kind - 1];

				t.num = f->total - fw_prefix(f, p + 1);
				fw_add(f, p, -1);
				fw_add(&fw[other - 1], r, 1);
			} else {
				t.num = r - p;
			}
			slot->set = (uint8_t)other;
		} else {
			t.num = zz_enc(e->gflags & GF_DELTAS ? wrap_sub(v, prev[t.group]) : v);
			if (fw)
				fw_add(&fw[GK_ODD - 1], r, 1);
			slot->set = GK_ODD;
		}
		slot->v = (uint64_t)v;
		slot->row1 = r < UINT32_MAX - 1 ? (uint32_t)(r + 1) : 0;
		prev[t.group] = v;
		fn(&t, arg);
	}
}

/* Per group: its rows, and per kind the count, the width and where its
 * planes start in the encoded block. */
struct glayout {
	size_t *rows, *kpos, (*n)[3], (*base)[3], (*j)[3];
	uint8_t (*w)[3];
	uint8_t *out;
};

static void grouped_count(const struct gtok *t, void *arg)
{
	struct glayout *l = arg;
	unsigned w = bytes_for(t->num);

	l->rows[t->group]++;
	l->n[t->group][t->kind]++;
	if (w > l->w[t->group][t->kind])
		l->w[t->group][t->kind] = (uint8_t)w;
}

static void grouped_place(const struct gtok *t, void *arg)
{
	struct glayout *l = arg;
	size_t g = t->group, k = (size_t)t->kind, at = l->base[g][k] + l->j[g][k]++;

	l->out[l->kpos[g]++] = (uint8_t)t->kind;
	for (unsigned b = 0; b < l->w[g][k]; b++)
		l->out[at + b * l->n[g][k]] = (uint8_t)(t->num >> (8 * b));
}

static void glayout_free(struct glayout *l)
{
	free(l->rows);
	free(l->kpos);
	free(l->n);
	free(l->base);
	free(l->j);
	free(l->w);
	free(l->out);
}

/*
 * ENC_GROUPED over rows [0, to): the kinds of all values, group by group
 * (a group is a resource type), then three widths per group that has
 * values, then per group and kind the numbers in byte planes. A type's
 * values resemble each other (a site's sizes, a release's references):
 * kept together they compress far better than interleaved in time order.
 */
static void emit_grouped(struct enc *e, const struct src *s, size_t to)
{
	size_t ng = s->ngroups, total = 0, widths, g, k;
	struct glayout l;
	struct fenwick fw[2];
	int64_t *prev = xcalloc(ng + 1, sizeof(*prev));
	uint8_t *o;

	l.rows = xcalloc(ng + 1, sizeof(*l.rows));
	l.kpos = xcalloc(ng + 1, sizeof(*l.kpos));
	l.n = xcalloc(ng + 1, sizeof(*l.n));
	l.base = xcalloc(ng + 1, sizeof(*l.base));
	l.j = xcalloc(ng + 1, sizeof(*l.j));
	l.w = xcalloc(ng + 1, sizeof(*l.w));
	grouped_pass(e, s, to, NULL, prev, grouped_count, &l);
	for (g = 0; g < ng; g++) {
		l.kpos[g] = total;
		total += l.rows[g];
	}
	widths = total;
	for (g = 0; g < ng; g++)
		total += l.rows[g] ? 3 : 0;
	for (g = 0; g < ng; g++)
		for (k = 0; k < 3; k++) {
			l.base[g][k] = total;
			total += l.w[g][k] * l.n[g][k];
		}
	l.out = xcalloc(total + 1, 1);
	o = l.out + widths;
	for (g = 0; g < ng; g++)
		if (l.rows[g]) {
			memcpy(o, l.w[g], 3);
			o += 3;
		}
	fw_init(&fw[0], to);
	fw_init(&fw[1], to);
	grouped_pass(e, s, to, fw, prev, grouped_place, &l);
	for (size_t at = 0; at < total; at += STAGE_SIZE) {
		size_t n = total - at < STAGE_SIZE ? total - at : STAGE_SIZE;

		memcpy(stage_room(e, n), l.out + at, n);
		e->stage.len += n;
	}
	fw_release(&fw[0]);
	fw_release(&fw[1]);
	free(prev);
	glayout_free(&l);
}

/* Rows [0, to) of @s in @enc (not ENC_CONST) into the open section's
 * stage, a block of room reserved at a time. */
static void emit(struct enc *e, const struct src *s, size_t to, enum cpt_enc enc, unsigned width)
{
	enum { BLOCK = 4096 };
	uint8_t *d = stage_room(e, BLOCK), *lim = d + BLOCK - 10;
	int64_t prev = 0;

	if (enc == ENC_GROUPED) {
		emit_grouped(e, s, to);
		return;
	}
	if (enc == ENC_REF)
		refs_reset(e, to);
	/* The planes take one pass per byte: plane k holds byte k of every
	 * value; the others one pass. */
	for (unsigned k = 0; k < (enc == ENC_PLANES || enc == ENC_RAW ? width : 1); k++) {
		prev = 0;
		for (size_t r = 0; r < to; r++) {
			uint64_t u;
			int64_t v;

			if (!src_has(s, r))
				continue;
			if (d >= lim) {
				stage_end(e, d);
				d = stage_room(e, BLOCK);
				lim = d + BLOCK - 10;
			}
			v = src_int(s, r);
			if (enc == ENC_RAW) {
				*d++ = (uint8_t)((uint64_t)v >> (8 * k));
			} else if (enc == ENC_PLANES) {
				*d++ = (uint8_t)(zz_enc(wrap_sub(v, prev)) >> (8 * k));
			} else if (enc == ENC_VARINT) {
				d = varint_put(d, zz_enc(v));
			} else if (enc == ENC_DELTA) {
				d = varint_put(d, zz_enc(wrap_sub(v, prev)));
			} else {
				struct ref_slot *slot = ref_slot_of(e, v);

				u = zz_enc(wrap_sub(v, prev)) << 1;
				if (u && slot->row1 && slot->v == (uint64_t)v)
					u = ((r - (slot->row1 - 1)) << 1) | 1;
				slot->v = (uint64_t)v;
				slot->row1 = r < UINT32_MAX - 1 ? (uint32_t)(r + 1) : 0;
				d = varint_put(d, u);
			}
			prev = v;
		}
	}
	stage_end(e, d);
}

/* The row where the first @n present values of @s end. */
static size_t rows_for(const struct src *s, size_t n)
{
	size_t r, k = 0;

	for (r = 0; r < s->len && k < n; r++)
		k += src_has(s, r);
	return r;
}

/*
 * The encoding that compresses a sample of the column smallest. The
 * sample is encoded and compressed for each contender; a stage of its own
 * keeps the open section's content apart.
 */
static enum cpt_enc choose(struct enc *e, const struct src *s, const struct stats *st,
			   unsigned width)
{
	static const struct {
		enum cpt_enc enc;
		int gflags;
	} contenders[] = {
		{ENC_VARINT, 0},
		{ENC_DELTA, 0},
		{ENC_REF, 0},
		{ENC_PLANES, 0},
		{ENC_GROUPED, GF_REFS | GF_DELTAS},
		{ENC_GROUPED, GF_DELTAS},
		{ENC_GROUPED, 0},
	};
	size_t to = rows_for(s, SAMPLE_VALUES), best_size = SIZE_MAX;
	struct buf keep = e->stage, packed = BUF_INIT;
	enum cpt_enc best = ENC_DELTA;
	int best_flags = 0;

	for (size_t i = 0; i < ARRAY_SIZE(contenders); i++) {
		enum cpt_enc enc = contenders[i].enc;
		size_t n;

		/* A literal of ENC_REF spends a bit on the flag. */
		if ((enc == ENC_REF && st->maxzz >> 63) || (enc == ENC_GROUPED && !s->group))
			continue;
		e->stage = (struct buf)BUF_INIT;
		e->sampling = true;
		e->gflags = contenders[i].gflags;
		emit(e, s, to, enc, width);
		e->sampling = false;
		buf_grow(&packed, ZSTD_compressBound(e->stage.len));
		n = ZSTD_compress(packed.data, packed.cap, e->stage.data, e->stage.len, 1);
		buf_release(&e->stage);
		if (!ZSTD_isError(n) && n < best_size) {
			best_size = n;
			best = enc;
			best_flags = contenders[i].gflags;
		}
	}
	buf_release(&packed);
	e->stage = keep;
	e->gflags = best_flags;
	return best;
}

/* An integer encoding and its values. */
static void write_ints(struct enc *e, const struct src *s)
{
	struct stats st;
	unsigned width;
	enum cpt_enc enc;

	int_stats(s, s->len, &st);
	if (st.same) {
		put_u8(e, ENC_CONST);
		put_varint(e, zz_enc(st.first));
		return;
	}
	width = width_of(st.maxzz);
	/* The sample's trials would cost more than the column. */
	enc = st.n < 64 ? ENC_DELTA : choose(e, s, &st, width);
	put_u8(e, (uint8_t)enc);
	if (enc == ENC_PLANES)
		put_u8(e, (uint8_t)width);
	if (enc == ENC_GROUPED)
		put_u8(e, (uint8_t)e->gflags);
	emit(e, s, s->len, enc, width);
}

static const double pow10_tab[] = {1e0, 1e1, 1e2,  1e3,	 1e4,  1e5,  1e6,  1e7,
				   1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

/* Whether @v is exactly round_int(v * 10^d) / 10^d. */
static inline bool decimal_ok(double v, int d)
{
	double x = v * pow10_tab[d], back;

	if (!(fabs(x) < 2251799813685248.0)) /* 2^51; also false for NaN */
		return false;
	back = (double)round_int(x) / pow10_tab[d];
	return memcmp(&back, &v, sizeof(v)) == 0;
}

/*
 * The fewest decimals that give every value of a double column back bit
 * for bit as an integer divided by 10^d; -1 when none do (NaN, -0.0, or
 * digits beyond 15). A value exact with d decimals is exact with more
 * (both are the double nearest the same decimal), so one scale serves
 * the column.
 */
static int decimal_scale(const struct column *c)
{
	int d = 0;
	size_t r;

	for (r = 0; r < c->len; r++) {
		if (!col_has(c, r) || decimal_ok(c->v.f64[r], d))
			continue;
		while (!decimal_ok(c->v.f64[r], d))
			if (++d >= (int)ARRAY_SIZE(pow10_tab))
				return -1;
	}
	/* Again at the final scale: near 2^53 a larger scale can fail a
	 * value a smaller one kept. */
	for (r = 0; r < c->len; r++)
		if (col_has(c, r) && !decimal_ok(c->v.f64[r], d))
			return -1;
	return d;
}

void write_values(struct enc *e, const struct profile *p, const struct column *c, bool res)
{
	struct src s = {.c = c, .remap = e->remap, .len = c->len};

	if (res) {
		s.group = p->res_type;
		s.ngroups = p->types.nrows;
	}

	/* Absent rows past absent_cap do not exist below len, nor rows
	 * past len here. */
	s.absent = c->absent;
	s.absent_cap = c->absent ? (c->absent_cap < c->len ? c->absent_cap : c->len) : 0;
	int d;

	if (c->kind == COL_I64) {
		s.mode = SRC_I64;
	} else if (c->kind == COL_STR || c->kind == COL_JSON) {
		s.mode = SRC_ID;
	} else if ((d = decimal_scale(c)) >= 0) {
		s.mode = SRC_DEC;
		s.scale = pow10_tab[d];
		put_u8(e, ENC_DECIMAL);
		put_u8(e, (uint8_t)d);
	} else {
		s.mode = SRC_BITS;
		put_u8(e, ENC_RAW);
		emit(e, &s, s.len, ENC_RAW, 8);
		return;
	}
	write_ints(e, &s);
}

void write_type_values(struct enc *e, const struct profile *p)
{
	struct src s = {.types = p->res_type, .len = p->res.nrows, .mode = SRC_TYPE};

	write_ints(e, &s);
}
