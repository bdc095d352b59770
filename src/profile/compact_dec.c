/*
 * The compact profile reader. Its input may be anything (a damaged file,
 * a crafted one): every length is checked against the bytes that are
 * there before it is used, every index against what it indexes, and
 * every JSON text is checked before a writer copies it out, so a bad file
 * gives one error line and never a read out of bounds.
 * docs/profile-format.md specifies the format.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "profile/compact_dec_priv.h"
#include "profile/compact_priv.h"
#include "profile/json_sax.h"
#include "profile/profile_priv.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/strpool.h"

size_t compact_max_rows = (size_t)1 << 32;

/* Whether @s is one JSON value and nothing else. */
bool cpt_json_ok(const char *s, size_t n)
{
	struct jsax j;
	int ev;
	bool ok;

	jsax_init_mem(&j, s, n, "json");
	ev = jsax_next(&j);
	ok = ev > 0 && jsax_skip(&j, ev) == 0 && jsax_next(&j) == JEV_EOF;
	jsax_release(&j);
	err_clear();
	return ok;
}

/* ---- sections ---- */

/* A zstd frame of exactly @rawsize bytes, grown as it is produced rather
 * than trusted up front. */
static int unzstd(struct dec *d, const uint8_t *src, size_t size, uint64_t rawsize, struct buf *out)
{
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	ZSTD_inBuffer in = {src, size, 0};
	size_t ret = 1;

	if (!dc)
		return err_set(ERR_NOMEM, "cannot start zstd");
	while (in.pos < in.size && ret != 0) {
		ZSTD_outBuffer ob;
		size_t want = out->len + (size_t)65536;

		if (out->len >= rawsize) {
			/* More content than the section said: read one byte
			 * more only to know. */
			want = out->len + 1;
		} else if (want > rawsize) {
			want = (size_t)rawsize;
		}
		if (want > out->cap || !out->data)
			buf_grow(out, want - out->len + (want - out->len) / 2);
		ob = (ZSTD_outBuffer){out->data + out->len, want - out->len, 0};
		ret = ZSTD_decompressStream(dc, &ob, &in);
		out->len += ob.pos;
		if (ZSTD_isError(ret) || out->len > rawsize)
			break;
	}
	ZSTD_freeDCtx(dc);
	if (ZSTD_isError(ret))
		return err_set(ERR_PARSE, "%s: corrupt compact profile: %s", d->name,
			       ZSTD_getErrorName(ret));
	if (ret != 0 || in.pos != in.size || out->len != rawsize)
		return corrupt(d, "a section's length does not match its content");
	return 0;
}

/* ---- META ---- */

/* A key and a value in one field. */
static int take_pair(struct dec *d, struct cur *f, struct kv **arr, size_t *n, bool json)
{
	uint64_t kl = cur_varint(f);
	const uint8_t *k = cur_take(f, kl);
	struct kv kv;

	if (!k)
		return corrupt(d, "a header member is cut short");
	if (json && !cpt_json_ok((const char *)f->p, (size_t)(f->end - f->p)))
		return corrupt(d, "a header member is not JSON");
	kv.key = xstrndup((const char *)k, (size_t)kl);
	kv.value = xstrndup((const char *)f->p, (size_t)(f->end - f->p));
	*arr = xrealloc(*arr, (*n + 1) * sizeof(**arr));
	(*arr)[(*n)++] = kv;
	return 0;
}

static int take_json(struct dec *d, struct cur *f, char **dst)
{
	size_t n = (size_t)(f->end - f->p);

	if (!cpt_json_ok((const char *)f->p, n))
		return corrupt(d, "a JSON member is not JSON");
	free(*dst);
	*dst = xstrndup((const char *)f->p, n);
	return 0;
}

static int take_shape(struct dec *d, struct cur *f)
{
	uint64_t layout = cur_varint(f), params = cur_varint(f);

	d->ntypes = cur_varint(f);
	d->nres = cur_varint(f);
	if (f->bad || layout > 1 || params > 1)
		return corrupt(d, "bad shape");
	if (d->ntypes > compact_max_rows || d->nres > compact_max_rows || d->ntypes > UINT32_MAX)
		return corrupt(d, "more rows than a reader takes");
	d->p->layout = layout ? LAYOUT_GLOBAL : LAYOUT_TYPED;
	d->p->args_is_params = params;
	d->has_types = true;
	return 0;
}

static int meta_field(struct dec *d, unsigned tag, struct cur *f)
{
	struct profile *p = d->p;
	char **str[] = {NULL, &p->origin, &p->type, &p->cmd, &p->args, &p->workload, &p->collector};

	if (tag >= META_ORIGIN && tag <= META_COLLECTOR) {
		free(*str[tag]);
		*str[tag] = xstrndup((const char *)f->p, (size_t)(f->end - f->p));
		return 0;
	}
	switch (tag) {
	case META_COLLECTOR_PARAMS:
		return take_json(d, f, &p->collector_params);
	case META_POSTPROCESSORS:
		return take_json(d, f, &p->postprocessors);
	case META_MODELS:
		return take_json(d, f, &p->models);
	case META_UNIT:
		return take_pair(d, f, &p->units, &p->nunits, false);
	case META_HEADER_MEMBER:
		return take_pair(d, f, &p->header_extra, &p->nheader_extra, true);
	case META_MEMBER:
		return take_pair(d, f, &p->extra, &p->nextra, true);
	case META_SHAPE:
		return take_shape(d, f);
	case META_TIMESTAMP:
		if (f->end - f->p != 8)
			return corrupt(d, "bad timestamp");
		{
			uint64_t bits = le_get(f->p, 8);

			memcpy(&p->timestamp, &bits, 8);
		}
		p->has_timestamp = true;
		return 0;
	default:
		return 0; /* a member of a later minor version */
	}
}

static int read_meta(struct dec *d, struct cur *c)
{
	int ret;

	while (c->p < c->end) {
		unsigned tag = cur_u8(c);
		uint64_t n = cur_varint(c);
		const uint8_t *at = cur_take(c, n);
		struct cur f;

		if (!at)
			return corrupt(d, "a header field is cut short");
		f = (struct cur){at, at + n, false};
		if ((ret = meta_field(d, tag, &f)) < 0)
			return ret;
	}
	if (!d->p->type)
		return err_set(ERR_INVALID, "%s: missing key header.type", d->name);
	if (!d->has_types)
		return corrupt(d, "no table sizes");
	d->has_meta = true;
	d->p->types.nrows = (size_t)d->ntypes;
	d->p->res.nrows = (size_t)d->nres;
	return 0;
}

/* ---- the string table ---- */

static int read_strings(struct dec *d, struct cur *c)
{
	struct cur lens;
	uint64_t i, total = 0;

	d->nstrs = cur_varint(c);
	/* Each length takes a byte at least. */
	if (c->bad || d->nstrs > (uint64_t)(c->end - c->p))
		return corrupt(d, "bad string table");
	lens = *c;
	for (i = 0; i < d->nstrs; i++) {
		uint64_t n = cur_varint(c);

		if (n > (uint64_t)(c->end - c->p))
			c->bad = true;
		total += n;
	}
	if (c->bad || total != (uint64_t)(c->end - c->p))
		return corrupt(d, "bad string table");
	d->strs = xmalloc((size_t)(d->nstrs + 1) * sizeof(*d->strs));
	d->checked = xcalloc((size_t)d->nstrs + 1, 1);
	for (i = 0; i < d->nstrs; i++) {
		uint64_t n = cur_varint(&lens);

		d->strs[i] = strpool_intern(d->p->pool, (const char *)c->p, (size_t)n);
		c->p += n;
	}
	d->has_strs = true;
	return 0;
}

/* ---- columns ---- */

static struct column *new_column(struct dec *d, struct table *t, const uint8_t *name, size_t n)
{
	struct column *c;
	char *s = xstrndup((const char *)name, n);

	if (strlen(s) != n || table_col(t, s)) {
		free(s);
		return NULL;
	}
	t->cols = xgrow(t->cols, sizeof(*t->cols), t->ncols + 1, &t->cols_cap);
	c = &t->cols[t->ncols++];
	memset(c, 0, sizeof(*c));
	c->name = strpool_get(d->p->pool, strpool_intern(d->p->pool, s, n));
	free(s);
	return c;
}

static int read_column(struct dec *d, struct cur *c, const char *tag)
{
	bool rtyp = memcmp(tag, TAG_RTYP, 4) == 0, types = memcmp(tag, TAG_TCOL, 4) == 0;
	struct table *t = types ? &d->p->types : &d->p->res;
	uint64_t nlen = cur_varint(c), len, npresent, rows = types ? d->ntypes : d->nres;
	const uint8_t *name = cur_take(c, nlen);
	unsigned kind = cur_u8(c);
	uint8_t *absent = NULL;
	struct column *col = NULL;
	int64_t *v = NULL;
	int ret;

	len = cur_varint(c);
	if (c->bad || kind > COL_JSON || len > rows || (rtyp && (nlen || kind || len != rows)))
		return corrupt(d, "bad column header");
	if (!rtyp && !(col = new_column(d, t, name, (size_t)nlen)))
		return corrupt(d, "a column name twice, or with a NUL");
	if ((ret = read_presence(d, c, len, &absent, &npresent)) < 0)
		goto out;
	d->res_col = !types && !rtyp;
	if (rtyp && absent) {
		ret = corrupt(d, "a resource without a type");
		goto out;
	}
	v = xmalloc(((size_t)len + 1) * sizeof(*v));
	if ((ret = read_cells(d, c, kind, v, len, absent, npresent)) < 0)
		goto out;
	if (rtyp) {
		for (uint64_t r = 0; r < len; r++)
			if ((uint64_t)v[r] >= d->ntypes) {
				ret = corrupt(d, "a resource of a type that is not there");
				goto out;
			}
		/* Below ntypes, so each fits 4 bytes; in place as above. */
		for (uint64_t r = 0; r < len; r++)
			((uint32_t *)v)[r] = (uint32_t)v[r];
		free(d->p->res_type);
		d->p->res_type = xrealloc(v, ((size_t)len + 1) * sizeof(uint32_t));
		d->p->res_type_cap = (size_t)len + 1;
		return 0;
	}
	if (d->mode == DEC_CHECK) {
		/* Checked; its name stays for the check of names. */
		free(v);
		free(absent);
		return 0;
	}
	col->kind = (enum col_kind)kind;
	col->narrow = kind == COL_I64 && narrow_ints(v, len);
	/* Text and narrow cells took half the room they were read into. */
	if (col->narrow || kind == COL_STR || kind == COL_JSON)
		v = xrealloc(v, ((size_t)len + 1) * sizeof(uint32_t));
	col->v.i64 = v;
	col->cap = (size_t)len + 1;
	col->len = (size_t)len;
	col->absent = absent;
	col->absent_cap = absent ? (size_t)len : 0;
	return 0;
out:
	free(v);
	free(absent);
	return ret;
}

/* ---- the file ---- */

static int read_section(struct dec *d, const char *tag, struct cur *c)
{
	if (!memcmp(tag, TAG_META, 4))
		return d->has_meta ? corrupt(d, "two headers") : read_meta(d, c);
	if (!d->has_meta)
		return corrupt(d, "no header first");
	if (!memcmp(tag, TAG_STRS, 4))
		return d->has_strs ? corrupt(d, "two string tables") : read_strings(d, c);
	if (!memcmp(tag, TAG_TCOL, 4) || !memcmp(tag, TAG_RTYP, 4) || !memcmp(tag, TAG_RCOL, 4)) {
		if (!d->has_strs)
			return corrupt(d, "a column before the string table");
		if (!memcmp(tag, TAG_RTYP, 4) && d->p->res_type)
			return corrupt(d, "two type columns");
		return read_column(d, c, tag);
	}
	return 0; /* a section of a later minor version */
}

/* The sections between the header and the trailer, [16, @len). */
static int read_sections(struct dec *d, const uint8_t *data, size_t len)
{
	size_t at = CPT_HEADER_LEN;
	struct buf raw = BUF_INIT;
	int ret = 0;

	while (at < len && ret == 0) {
		const uint8_t *h = data + at;
		uint64_t size, rawsize;
		char tag[4];
		struct cur c;

		if (len - at < CPT_SECTION_HEAD)
			return corrupt(d, "a section header is cut short");
		memcpy(tag, h, 4);
		size = le_get(h + 5, 8);
		rawsize = le_get(h + 13, 8);
		at += CPT_SECTION_HEAD;
		if (size > len - at) {
			ret = corrupt(d, "a section is longer than the file");
			break;
		}
		buf_reset(&raw);
		if (h[4] == CPT_STORED && rawsize == size)
			c = (struct cur){h + CPT_SECTION_HEAD, h + CPT_SECTION_HEAD + size, false};
		else if (h[4] != CPT_ZSTD || rawsize > CPT_SECTION_MAX)
			ret = corrupt(d, "bad section header");
		else if ((ret = unzstd(d, h + CPT_SECTION_HEAD, (size_t)size, rawsize, &raw)) == 0)
			c = (struct cur){(const uint8_t *)raw.data,
					 (const uint8_t *)raw.data + raw.len, false};
		if (ret == 0)
			ret = read_section(d, tag, &c);
		at += (size_t)size;
		if (d->mode == DEC_HEADER && d->has_meta)
			break;
	}
	buf_release(&raw);
	return ret;
}

/* The END section closes the file with a CRC-32 of all before it: a
 * file cut anywhere, or changed anywhere, fails here first. */
static int check_trailer(struct dec *d, const uint8_t *data, size_t len)
{
	const uint8_t *t;

	if (len < CPT_HEADER_LEN + CPT_TRAILER)
		return err_set(ERR_PARSE, "%s: truncated compact profile (%zu bytes)", d->name,
			       len);
	t = data + len - CPT_TRAILER;
	if (memcmp(t, TAG_END, 4) != 0 || t[4] != CPT_STORED || le_get(t + 5, 8) != 4 ||
	    le_get(t + 13, 8) != 4)
		return err_set(ERR_PARSE, "%s: truncated compact profile (%zu bytes, no end mark)",
			       d->name, len);
	if (le_get(t + CPT_SECTION_HEAD, 4) != crc32_z(0, (const Bytef *)data, len - CPT_TRAILER))
		return corrupt(d, "checksum mismatch");
	return 0;
}

/* Types found by key, as the JSON reader leaves them. */
static int finish(struct dec *d)
{
	struct profile *p = d->p;

	if (!d->has_strs)
		return corrupt(d, "no string table");
	if (p->res.nrows && !p->res_type)
		return corrupt(d, "no type column");
	profile_index_keys(p);
	return 0;
}

bool profile_is_compact(const void *data, size_t len)
{
	return len >= CPT_MAGIC_LEN && memcmp(data, CPT_MAGIC, CPT_MAGIC_LEN) == 0;
}

static int decode(const uint8_t *data, size_t len, const char *name, enum dec_mode mode,
		  struct profile **out)
{
	struct dec d = {.name = name ? name : "profile", .mode = mode};
	unsigned major;
	int ret;

	*out = NULL;
	if (!profile_is_compact(data, len))
		return err_set(ERR_PARSE, "%s: not a compact profile", d.name);
	if ((ret = check_trailer(&d, data, len)) < 0)
		return ret;
	major = (unsigned)le_get(data + 8, 2);
	if (major != CPT_MAJOR)
		return err_set(ERR_INVALID,
			       "%s: compact profile format %u.%u; this veles reads %u.x only",
			       d.name, major, (unsigned)le_get(data + 10, 2), CPT_MAJOR);
	d.p = profile_new();
	ret = read_sections(&d, data, len - CPT_TRAILER);
	if (ret == 0 && !d.has_meta)
		ret = corrupt(&d, "no header");
	if (ret == 0 && mode != DEC_HEADER)
		ret = finish(&d);
	if (mode != DEC_ALL) {
		/* The header alone: no rows, whatever the tables held. */
		d.p->types.nrows = 0;
		d.p->res.nrows = 0;
		free(d.p->res_type);
		d.p->res_type = NULL;
		d.p->res_type_cap = 0;
	}
	free(d.strs);
	free(d.checked);
	if (ret < 0) {
		profile_free(d.p);
		return ret;
	}
	*out = d.p;
	return 0;
}

int profile_decode(const uint8_t *data, size_t len, const char *name, struct profile **out)
{
	return decode(data, len, name, DEC_ALL, out);
}

int profile_decode_header(const uint8_t *data, size_t len, const char *name, struct profile **out)
{
	return decode(data, len, name, DEC_HEADER, out);
}

int profile_decode_check(const uint8_t *data, size_t len, const char *name, struct profile **out)
{
	return decode(data, len, name, DEC_CHECK, out);
}
