/* Writing recordings: delta-encoded samples in a zstd stream. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "monitor/record.h"
#include "util/common.h"

static void put_varint(struct buf *b, uint64_t v)
{
	buf_grow(b, 10);
	while (v >= 0x80) {
		b->data[b->len++] = (char)(v | 0x80);
		v >>= 7;
	}
	b->data[b->len++] = (char)v;
}

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (v < 0 ? UINT64_MAX : 0);
}

/* Whether @t has exactly the row names of @p (then only values are sent). */
static bool same_rows(const struct mon_table *t, const struct mon_table *p)
{
	if (t->nrows != p->nrows)
		return false;
	return !t->nrows || !memcmp(t->names, p->names, t->nrows * MON_NAME);
}

static void encode_table(struct buf *b, const struct mon_table *t, const struct mon_table *p,
			 size_t ncols)
{
	bool same = p && same_rows(t, p);

	put_varint(b, t->nrows);
	buf_addc(b, same ? 0 : 1);
	if (!same)
		for (size_t r = 0; r < t->nrows; r++) {
			size_t n = strlen(t->names[r]);

			buf_addc(b, (char)n);
			buf_add(b, t->names[r], n);
		}
	for (size_t i = 0; i < t->nrows * ncols; i++)
		put_varint(b, zigzag((int64_t)(t->vals[i] - (same ? p->vals[i] : 0))));
}

/* @s after @prev: its time as the difference from @prev's, its tables as
 * differences from @base's (NULL: from zero, with their row names). */
static void encode_sample(struct buf *b, const struct mon_sample *s, const struct mon_sample *prev,
			  const struct mon_sample *base)
{
	int64_t us = (int64_t)(s->t * 1e6 + 0.5);
	int64_t prev_us = prev ? (int64_t)(prev->t * 1e6 + 0.5) : 0;

	put_varint(b, zigzag(us - prev_us));
	put_varint(b, s->present);
	for (int t = 0; t < MT_COUNT; t++)
		if (s->present & (1u << t))
			encode_table(b, &s->tab[t],
				     base && (base->present & (1u << t)) ? &base->tab[t] : NULL,
				     mon_tabdefs[t].ncols);
	put_varint(b, s->nmod);
	for (size_t i = 0; i < s->nmod; i++) {
		size_t n = strlen(s->mod[i].line);

		put_varint(b, s->mod[i].module);
		put_varint(b, n);
		buf_add(b, s->mod[i].line, n);
	}
}

void mon_encode_sample(struct buf *b, const struct mon_sample *s, const struct mon_sample *prev)
{
	encode_sample(b, s, prev, prev);
}

/* Compresses @len bytes at @data with @mode and writes what comes out. */
static int write_z(struct mon_writer *w, const void *data, size_t len, ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = {data, len, 0};
	size_t left;

	do {
		ZSTD_outBuffer out;

		buf_grow(&w->out, ZSTD_CStreamOutSize());
		out = (ZSTD_outBuffer){w->out.data, w->out.cap - 1, 0};
		left = ZSTD_compressStream2(w->zc, &out, &in, mode);
		if (ZSTD_isError(left))
			return err_set(ERR_IO, "cannot compress: %s", ZSTD_getErrorName(left));
		if (out.pos && fwrite(w->out.data, 1, out.pos, w->f) != out.pos)
			return err_set(ERR_IO, "cannot write the recording: %s", strerror(errno));
	} while (left || in.pos < in.size);
	return fflush(w->f) ? err_set(ERR_IO, "cannot write the recording: %s", strerror(errno))
			    : 0;
}

static int write_record(struct mon_writer *w, char tag, const struct buf *payload)
{
	buf_reset(&w->rec);
	buf_addc(&w->rec, tag);
	put_varint(&w->rec, payload->len);
	buf_add(&w->rec, payload->data, payload->len);
	return write_z(w, w->rec.data, w->rec.len, ZSTD_e_flush);
}

int mon_writer_open(struct mon_writer *w, const char *path, const char *header)
{
	struct buf h = BUF_INIT;
	int rc;

	memset(w, 0, sizeof(*w));
	w->f = fopen(path, "wbe");
	if (!w->f)
		return err_set(ERR_IO, "cannot create %s: %s", path, strerror(errno));
	w->zc = ZSTD_createCCtx();
	ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, 3);
	fputs(MON_MAGIC, w->f);
	buf_adds(&h, header);
	rc = write_record(w, 'H', &h);
	buf_release(&h);
	return rc;
}

int mon_writer_add(struct mon_writer *w, const struct mon_sample *s)
{
	struct buf payload = BUF_INIT;
	int rc;

	/* Every MON_FRAME_SAMPLES samples the zstd frame ends and a new one
	 * starts with the time base and a sample owing nothing to the ones
	 * before, so a damaged frame loses only its own samples. */
	if (w->have_prev && w->nsamples % MON_FRAME_SAMPLES == 0) {
		rc = write_z(w, NULL, 0, ZSTD_e_end);
		put_varint(&payload, (uint64_t)(int64_t)(w->prev.t * 1e6 + 0.5));
		if (!rc)
			rc = write_record(w, 'T', &payload);
		buf_reset(&payload);
		encode_sample(&payload, s, &w->prev, NULL);
	} else {
		rc = 0;
		mon_encode_sample(&payload, s, w->have_prev ? &w->prev : NULL);
	}
	if (!rc)
		rc = write_record(w, 'S', &payload);
	buf_release(&payload);
	mon_sample_copy(&w->prev, s);
	w->have_prev = true;
	w->nsamples++;
	return rc;
}

int mon_writer_close(struct mon_writer *w)
{
	int rc = 0;

	if (!w->f)
		return 0;
	rc = write_z(w, NULL, 0, ZSTD_e_end);
	if (fclose(w->f) && !rc)
		rc = err_set(ERR_IO, "cannot write the recording: %s", strerror(errno));
	w->f = NULL;
	ZSTD_freeCCtx(w->zc);
	mon_sample_release(&w->prev);
	buf_release(&w->rec);
	buf_release(&w->out);
	return rc;
}
