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

#include "profile/compact_enc_priv.h"
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

/* A column of at most this many rows is compressed in one piece, its size
 * told first (see sec_end()); a longer one is streamed. */
#define WHOLE_ROWS 65536

/* Opens section @tag; @rows is the rows of a column section, 0 for others. */
static void sec_begin(struct enc *e, const char *tag, bool zstd, size_t rows)
{
	bool big = !memcmp(tag, TAG_RCOL, 4) || !memcmp(tag, TAG_RTYP, 4);

	e->head = e->out->len;
	buf_grow(e->out, CPT_SECTION_HEAD);
	memcpy(e->out->data + e->out->len, tag, 4);
	memset(e->out->data + e->out->len + 4, 0, CPT_SECTION_HEAD - 4);
	e->out->len += CPT_SECTION_HEAD;
	e->rawsize = 0;
	e->zstd = zstd;
	e->whole = zstd && (!big || rows <= WHOLE_ROWS);
	e->slowest = zstd && !big;
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
uint8_t *stage_room(struct enc *e, size_t n)
{
	if (e->stage.len + n > STAGE_SIZE && e->stage.len && !e->sampling && !e->whole)
		sec_flush(e);
	buf_grow(&e->stage, n);
	return (uint8_t *)e->stage.data + e->stage.len;
}

void stage_end(struct enc *e, uint8_t *d)
{
	e->stage.len = (size_t)((char *)d - e->stage.data);
}

static void sec_end(struct enc *e)
{
	uint8_t *h;

	/* A small section is compressed in one go, its size told first:
	 * zstd then sizes its tables to it, where level 19 on a stream of
	 * unknown length takes 89 MB, and level 9 17 MB for a column of
	 * twenty rows. */
	if (e->whole) {
		ZSTD_CCtx_setPledgedSrcSize(e->zc, e->stage.len);
		if (e->slowest && e->stage.len < (1 << 20))
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

void put_varint(struct enc *e, uint64_t v)
{
	stage_end(e, varint_put(stage_room(e, 10), v));
}

static void put_bytes(struct enc *e, const void *s, size_t n)
{
	put_varint(e, n);
	memcpy(stage_room(e, n), s, n);
	e->stage.len += n;
}

void put_u8(struct enc *e, uint8_t v)
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

	sec_begin(e, TAG_META, true, 0);
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
	sec_begin(e, TAG_STRS, true, 0);
	put_varint(e, e->nstrs);
	if (lens.len) {
		memcpy(stage_room(e, lens.len), lens.data, lens.len);
		e->stage.len += lens.len;
	}
	for (i = 0; i < bytes.len; i += STAGE_SIZE) {
		size_t k = bytes.len - i < STAGE_SIZE ? bytes.len - i : STAGE_SIZE;

		memcpy(stage_room(e, k), bytes.data + i, k);
		e->stage.len += k;
	}
	sec_end(e);
	buf_release(&lens);
	buf_release(&bytes);
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
	sec_begin(e, tag, true, c->len);
	put_bytes(e, c->name, strlen(c->name));
	put_u8(e, (uint8_t)c->kind);
	put_varint(e, c->len);
	write_presence(e, c);
	write_values(e, p, c, tag[0] == 'R');
	sec_end(e);
}

static void write_types(struct enc *e, const struct profile *p)
{
	sec_begin(e, TAG_RTYP, true, p->res.nrows);
	put_varint(e, 0); /* no name */
	put_u8(e, COL_I64);
	put_varint(e, p->res.nrows);
	put_u8(e, 0);
	write_type_values(e, p);
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
	sec_begin(e, TAG_END, false, 0);
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
	sec_begin(&e, TAG_META, true, 0);
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
