/*
 * The compact profile writer: the column tables as they are in memory,
 * each column a typed array in the encoding that makes it smallest, every
 * section zstd-compressed as it is produced (no uncompressed copy of the
 * profile is ever held). docs/profile-format.md specifies the format.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "profile/compact_priv.h"
#include "profile/profile_priv.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/strpool.h"

/* zstd's levels: the header, strings and types are small and repetitive
 * (a memory profile's stack traces), worth the slowest; the resources'
 * columns are most of the bytes and of the time, and level 9 took a
 * memory profile 10% below level 3 for 20% more time, 19 3% further for
 * ten times as much. */
#define LEVEL_SMALL 19
#define LEVEL_COLUMNS 9
/* Encoded bytes are handed to zstd in pieces of this size. */
#define STAGE_SIZE (256 * 1024)
/* Each encoding is tried on the first this many values of a column. */
#define SAMPLE_VALUES 65536
/* The back-reference cache of ENC_REF: slots, a power of two. */
#define REF_SLOTS (1u << 20)

/* ENC_REF, ENC_GROUPED: the last row seen with a value of this hash. */
struct ref_slot {
	uint64_t v;
	uint32_t row1; /* row + 1; 0 when empty (rows past 2^32 - 2 are not kept) */
	uint8_t set;   /* ENC_GROUPED: GK_ODD or GK_EVEN, where row1 - 1 is marked */
};

struct enc {
	struct buf *out;
	ZSTD_CCtx *zc;
	struct buf stage; /* content not yet handed to zstd */
	size_t head;	  /* offset of the open section's header in @out */
	uint64_t rawsize; /* content bytes of the open section */
	bool zstd;	  /* the open section is compressed */
	uint32_t *remap;  /* pool id -> string table index, UINT32_MAX if unused */
	uint32_t nstrs;	  /* strings in the table */
	struct ref_slot *refs;
	bool sampling; /* the stage holds a trial encoding: never flushed */
	bool whole;    /* the open section is compressed in one piece at its end */
	int gflags;    /* ENC_GROUPED's GF_* */
	int err;
};

/* ---- sections ---- */

static void zfeed(struct enc *e, const void *data, size_t n, ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = {data, n, 0};
	size_t ret;

	do {
		ZSTD_outBuffer ob;

		buf_grow(e->out, ZSTD_CStreamOutSize());
		ob = (ZSTD_outBuffer){e->out->data + e->out->len, e->out->cap - e->out->len - 1, 0};
		ret = ZSTD_compressStream2(e->zc, &ob, &in, mode);
		e->out->len += ob.pos;
		if (ZSTD_isError(ret)) {
			if (!e->err)
				e->err = err_set(ERR_GENERIC, "zstd: %s", ZSTD_getErrorName(ret));
			return;
		}
	} while (mode == ZSTD_e_end ? ret != 0 : in.pos < in.size);
}

static void sec_begin(struct enc *e, const char *tag, bool zstd)
{
	bool big = !memcmp(tag, TAG_RCOL, 4) || !memcmp(tag, TAG_RTYP, 4);

	e->head = e->out->len;
	buf_grow(e->out, CPT_SECTION_HEAD);
	memcpy(e->out->data + e->out->len, tag, 4);
	memset(e->out->data + e->out->len + 4, 0, CPT_SECTION_HEAD - 4);
	e->out->len += CPT_SECTION_HEAD;
	e->rawsize = 0;
	e->zstd = zstd;
	e->whole = zstd && !big;
	if (zstd) {
		ZSTD_CCtx_reset(e->zc, ZSTD_reset_session_only);
		ZSTD_CCtx_setParameter(e->zc, ZSTD_c_compressionLevel, LEVEL_COLUMNS);
	}
}

/* Hands the staged content on: to zstd, or as it is. */
static void sec_flush(struct enc *e)
{
	e->rawsize += e->stage.len;
	if (e->zstd)
		zfeed(e, e->stage.data, e->stage.len, ZSTD_e_continue);
	else
		buf_add(e->out, e->stage.data, e->stage.len);
	buf_reset(&e->stage);
}

/* Room for @n more bytes in the stage, flushing it when it is full. */
static uint8_t *stage_room(struct enc *e, size_t n)
{
	if (e->stage.len + n > STAGE_SIZE && e->stage.len && !e->sampling && !e->whole)
		sec_flush(e);
	buf_grow(&e->stage, n);
	return (uint8_t *)e->stage.data + e->stage.len;
}

static void stage_end(struct enc *e, uint8_t *d)
{
	e->stage.len = (size_t)((char *)d - e->stage.data);
}

static void sec_end(struct enc *e)
{
	uint8_t *h;

	/* A small section is compressed in one go, its size told first:
	 * zstd then sizes its tables to it, where level 19 on a stream of
	 * unknown length takes 89 MB. */
	if (e->whole) {
		ZSTD_CCtx_setPledgedSrcSize(e->zc, e->stage.len);
		if (e->stage.len < (1 << 20))
			ZSTD_CCtx_setParameter(e->zc, ZSTD_c_compressionLevel, LEVEL_SMALL);
		e->whole = false;
	}
	sec_flush(e);
	if (e->zstd)
		zfeed(e, NULL, 0, ZSTD_e_end);
	h = (uint8_t *)e->out->data + e->head;
	h[4] = e->zstd ? CPT_ZSTD : CPT_STORED;
	le_put(h + 5, e->out->len - e->head - CPT_SECTION_HEAD, 8);
	le_put(h + 13, e->rawsize, 8);
}

static void put_varint(struct enc *e, uint64_t v)
{
	stage_end(e, varint_put(stage_room(e, 10), v));
}

static void put_bytes(struct enc *e, const void *s, size_t n)
{
	put_varint(e, n);
	memcpy(stage_room(e, n), s, n);
	e->stage.len += n;
}

static void put_u8(struct enc *e, uint8_t v)
{
	*stage_room(e, 1) = v;
	e->stage.len++;
}

/* ---- META ---- */

static void meta_str(struct enc *e, uint8_t tag, const char *s)
{
	if (!s)
		return;
	put_u8(e, tag);
	put_bytes(e, s, strlen(s));
}

static void meta_pairs(struct enc *e, uint8_t tag, const struct kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t kl = strlen(kv[i].key), vl = strlen(kv[i].value);
		uint8_t len[10];
		size_t ll = (size_t)(varint_put(len, kl) - len);

		put_u8(e, tag);
		put_varint(e, ll + kl + vl);
		memcpy(stage_room(e, ll), len, ll);
		e->stage.len += ll;
		memcpy(stage_room(e, kl + vl), kv[i].key, kl);
		memcpy(e->stage.data + e->stage.len + kl, kv[i].value, vl);
		e->stage.len += kl + vl;
	}
}

static void write_meta(struct enc *e, const struct profile *p)
{
	uint8_t shape[40], *d = shape;

	sec_begin(e, TAG_META, true);
	meta_str(e, META_ORIGIN, p->origin);
	meta_str(e, META_TYPE, p->type ? p->type : "");
	meta_str(e, META_CMD, p->cmd);
	meta_str(e, META_ARGS, p->args);
	meta_str(e, META_WORKLOAD, p->workload);
	meta_str(e, META_COLLECTOR, p->collector);
	meta_str(e, META_COLLECTOR_PARAMS, p->collector_params);
	meta_str(e, META_POSTPROCESSORS, p->postprocessors);
	meta_str(e, META_MODELS, p->models);
	meta_pairs(e, META_UNIT, p->units, p->nunits);
	meta_pairs(e, META_HEADER_MEMBER, p->header_extra, p->nheader_extra);
	meta_pairs(e, META_MEMBER, p->extra, p->nextra);
	d = varint_put(d, p->layout == LAYOUT_GLOBAL);
	d = varint_put(d, p->args_is_params);
	d = varint_put(d, p->types.nrows);
	d = varint_put(d, p->res.nrows);
	put_u8(e, META_SHAPE);
	put_bytes(e, shape, (size_t)(d - shape));
	if (p->has_timestamp) {
		uint64_t bits;

		memcpy(&bits, &p->timestamp, 8);
		le_put(shape, bits, 8);
		put_u8(e, META_TIMESTAMP);
		put_bytes(e, shape, 8);
	}
	sec_end(e);
}

/* ---- the string table ---- */

static void remap_col(struct enc *e, const struct profile *p, const struct column *c,
		      struct buf *lens, struct buf *bytes)
{
	if (c->kind != COL_STR && c->kind != COL_JSON)
		return;
	for (size_t r = 0; r < c->len; r++) {
		uint32_t id;

		if (!col_has(c, r))
			continue;
		id = c->v.id[r];
		if (e->remap[id] != UINT32_MAX)
			continue;
		e->remap[id] = e->nstrs++;
		buf_grow(lens, 10);
		lens->len = (size_t)((char *)varint_put((uint8_t *)lens->data + lens->len,
							strpool_len(p->pool, id)) -
				     lens->data);
		buf_add(bytes, strpool_get(p->pool, id), strpool_len(p->pool, id));
	}
}

/* Every string a column uses, once, in the order first used (so the same
 * profile always gives the same bytes, and the same blob in the store). */
static void write_strings(struct enc *e, const struct profile *p)
{
	struct buf lens = BUF_INIT, bytes = BUF_INIT;
	size_t n = strpool_count(p->pool), i;

	e->remap = xmalloc((n + 1) * sizeof(*e->remap));
	memset(e->remap, 0xff, (n + 1) * sizeof(*e->remap));
	for (i = 0; i < p->types.ncols; i++)
		remap_col(e, p, &p->types.cols[i], &lens, &bytes);
	for (i = 0; i < p->res.ncols; i++)
		remap_col(e, p, &p->res.cols[i], &lens, &bytes);
	sec_begin(e, TAG_STRS, true);
	put_varint(e, e->nstrs);
	memcpy(stage_room(e, lens.len), lens.data, lens.len);
	e->stage.len += lens.len;
	for (i = 0; i < bytes.len; i += STAGE_SIZE) {
		size_t k = bytes.len - i < STAGE_SIZE ? bytes.len - i : STAGE_SIZE;

		memcpy(stage_room(e, k), bytes.data + i, k);
		e->stage.len += k;
	}
	sec_end(e);
	buf_release(&lens);
	buf_release(&bytes);
}

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
	return &e->refs[((uint64_t)v * 0x9E3779B97F4A7C15ULL) >> 44];
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
	memset(e->refs, 0, REF_SLOTS * sizeof(*e->refs));
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
		memset(e->refs, 0, REF_SLOTS * sizeof(*e->refs));
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

static void write_values(struct enc *e, const struct profile *p, const struct column *c, bool res)
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

/* Which rows have a value: 0 for all, else 1 and the lengths of the
 * alternating runs, present first. */
static void write_presence(struct enc *e, const struct column *c)
{
	struct buf runs = BUF_INIT;
	size_t r = 0, nruns = 0;
	bool want = true, any = false;

	for (size_t i = 0; c->absent && i < c->len && !any; i++)
		any = !col_has(c, i);
	if (!any) {
		put_u8(e, 0);
		return;
	}
	while (r < c->len) {
		size_t from = r;

		while (r < c->len && col_has(c, r) == want)
			r++;
		buf_grow(&runs, 10);
		runs.len = (size_t)((char *)varint_put((uint8_t *)runs.data + runs.len, r - from) -
				    runs.data);
		nruns++;
		want = !want;
	}
	put_u8(e, 1);
	put_varint(e, nruns);
	memcpy(stage_room(e, runs.len), runs.data, runs.len);
	e->stage.len += runs.len;
	buf_release(&runs);
}

static void write_column(struct enc *e, const struct profile *p, const char *tag,
			 const struct column *c)
{
	sec_begin(e, tag, true);
	put_bytes(e, c->name, strlen(c->name));
	put_u8(e, (uint8_t)c->kind);
	put_varint(e, c->len);
	write_presence(e, c);
	write_values(e, p, c, tag[0] == 'R');
	sec_end(e);
}

static void write_types(struct enc *e, const struct profile *p)
{
	struct src s = {.types = p->res_type, .len = p->res.nrows, .mode = SRC_TYPE};

	sec_begin(e, TAG_RTYP, true);
	put_varint(e, 0); /* no name */
	put_u8(e, COL_I64);
	put_varint(e, p->res.nrows);
	put_u8(e, 0);
	write_ints(e, &s);
	sec_end(e);
}

/* The file's header (@e->out is empty up to @start). */
static int enc_start(struct enc *e, struct buf *out)
{
	uint8_t head[CPT_HEADER_LEN] = {0};

	memset(e, 0, sizeof(*e));
	e->out = out;
	e->zc = ZSTD_createCCtx();
	if (!e->zc)
		return err_set(ERR_NOMEM, "cannot start zstd");
	ZSTD_CCtx_setParameter(e->zc, ZSTD_c_checksumFlag, 1);
	memcpy(head, CPT_MAGIC, CPT_MAGIC_LEN);
	le_put(head + 8, CPT_MAJOR, 2);
	le_put(head + 10, CPT_MINOR, 2);
	buf_add(out, head, sizeof(head));
	return 0;
}

/* The end: a CRC-32 of every byte before it, so that damage anywhere (a
 * tag, a length, a stored byte) is caught, not read as data. */
static int enc_finish(struct enc *e, size_t start)
{
	struct buf *out = e->out;
	uint8_t crc[4];

	le_put(crc, crc32_z(0, (const Bytef *)out->data + start, out->len - start), 4);
	sec_begin(e, TAG_END, false);
	memcpy(stage_room(e, 4), crc, 4);
	e->stage.len += 4;
	sec_end(e);
	ZSTD_freeCCtx(e->zc);
	buf_release(&e->stage);
	free(e->remap);
	free(e->refs);
	if (e->err)
		out->len = start;
	return e->err;
}

int profile_encode(const struct profile *p, struct buf *out)
{
	struct enc e;
	size_t start = out->len, i;
	int ret = enc_start(&e, out);

	if (ret < 0)
		return ret;
	e.refs = xmalloc(REF_SLOTS * sizeof(*e.refs));
	write_meta(&e, p);
	write_strings(&e, p);
	for (i = 0; i < p->types.ncols; i++)
		write_column(&e, p, TAG_TCOL, &p->types.cols[i]);
	write_types(&e, p);
	for (i = 0; i < p->res.ncols; i++)
		write_column(&e, p, TAG_RCOL, &p->res.cols[i]);
	return enc_finish(&e, start);
}

/* The META content of @data (a checked compact profile) into @meta. */
static int old_meta(const uint8_t *data, size_t len, struct buf *meta)
{
	const uint8_t *h = data + CPT_HEADER_LEN;
	uint64_t size = le_get(h + 5, 8), rawsize = le_get(h + 13, 8);
	size_t n;

	if (len < CPT_HEADER_LEN + CPT_SECTION_HEAD + CPT_TRAILER || memcmp(h, TAG_META, 4) ||
	    h[4] != CPT_ZSTD || size > len - CPT_HEADER_LEN - CPT_SECTION_HEAD ||
	    rawsize > (1 << 30))
		return err_set(ERR_PARSE, "not a checked compact profile");
	buf_grow(meta, (size_t)rawsize);
	n = ZSTD_decompress(meta->data, (size_t)rawsize, h + CPT_SECTION_HEAD, (size_t)size);
	if (ZSTD_isError(n) || n != rawsize)
		return err_set(ERR_PARSE, "not a checked compact profile");
	meta->len = n;
	return 0;
}

int profile_compact_with_origin(const uint8_t *data, size_t len, const char *origin,
				struct buf *out)
{
	struct buf meta = BUF_INIT;
	size_t start = out->len, rest;
	struct enc e;
	int ret = old_meta(data, len, &meta);

	if (ret == 0)
		ret = enc_start(&e, out);
	if (ret < 0) {
		buf_release(&meta);
		return ret;
	}
	/* The origin first, as write_meta() puts it, then every other field
	 * as it was: the bytes profile_encode() writes for this profile. */
	sec_begin(&e, TAG_META, true);
	meta_str(&e, META_ORIGIN, origin);
	for (struct cur c = {(const uint8_t *)meta.data, (const uint8_t *)meta.data + meta.len,
			     false};
	     c.p < c.end && !c.bad;) {
		const uint8_t *at = c.p;
		unsigned tag = cur_u8(&c);
		uint64_t n = cur_varint(&c);

		if (cur_take(&c, n) && tag != META_ORIGIN) {
			memcpy(stage_room(&e, (size_t)(c.p - at)), at, (size_t)(c.p - at));
			e.stage.len += (size_t)(c.p - at);
		}
	}
	sec_end(&e);
	/* The sections after META, up to the end, as they are. */
	rest = CPT_HEADER_LEN + CPT_SECTION_HEAD + (size_t)le_get(data + CPT_HEADER_LEN + 5, 8);
	if (rest <= len - CPT_TRAILER)
		buf_add(out, data + rest, len - CPT_TRAILER - rest);
	else if (!e.err)
		e.err = err_set(ERR_PARSE, "not a checked compact profile");
	buf_release(&meta);
	return enc_finish(&e, start);
}
