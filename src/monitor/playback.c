/* Reading recordings back: decompress, then decode sample records. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "monitor/record.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

/* Notes that a frame's output ends at @at (once). */
static void add_end(struct mon_player *p, size_t at, size_t *cap)
{
	if (p->nends && p->ends[p->nends - 1] == at)
		return;
	p->ends = xgrow(p->ends, sizeof(*p->ends), p->nends + 1, cap);
	p->ends[p->nends++] = at;
}

/* Where the next zstd frame starts in @z at or after @from; @zlen if none. */
static size_t next_frame(const char *z, size_t zlen, size_t from)
{
	static const char magic[4] = {0x28, (char)0xb5, 0x2f, (char)0xfd};

	for (size_t i = from; i + 4 <= zlen; i++)
		if (!memcmp(z + i, magic, 4))
			return i;
	return zlen;
}

/* Decompresses @z into @out, giving zstd at most @step input bytes a call,
 * and notes where each frame's output ends. With @resync, a corrupt frame
 * is left at its damaged block and decoding goes on at the next frame.
 * Returns 0 for a whole stream, 1 when it stops inside a frame (cut short)
 * and -1 when it is corrupt; what was decoded before stays in @out. */
static int inflate_by(struct mon_player *p, const char *z, size_t zlen, size_t step, bool resync,
		      struct buf *out)
{
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	ZSTD_inBuffer in = {z, 0, 0};
	size_t r = 0, ends_cap = 0, good = 0;
	bool full = false;
	int rc = 0;

	for (;;) {
		ZSTD_outBuffer o;

		if (in.pos == in.size && !full) {
			if (in.size == zlen)
				break;
			in.size = zlen - in.size > step ? in.size + step : zlen;
		}
		buf_grow(out, 1 << 20);
		o = (ZSTD_outBuffer){out->data + out->len, out->cap - out->len - 1, 0};
		r = ZSTD_decompressStream(dc, &o, &in);
		if (ZSTD_isError(r)) {
			rc = -1;
			if (!resync || (in.pos = next_frame(z, zlen, good + 1)) == zlen)
				break;
			/* The torn frame's whole records stay; playback skips
			 * from its end to the next frame. */
			if (!p->nends || p->ends[p->nends - 1] != out->len)
				p->gaps++;
			add_end(p, out->len, &ends_cap);
			ZSTD_DCtx_reset(dc, ZSTD_reset_session_only);
			in.size = in.pos;
			good = in.pos;
			full = false;
			continue;
		}
		out->len += o.pos;
		full = o.pos == o.size;
		if (o.pos || !r)
			good = in.pos;
		if (!r)
			add_end(p, out->len, &ends_cap);
	}
	ZSTD_freeDCtx(dc);
	return rc < 0 ? rc : r != 0;
}

/* Decompresses what it can of @z; sets p->damaged when the stream is cut
 * or corrupt. zstd reports an error without the output of the call that
 * met it, so a corrupt stream is decoded again a byte at a time: then that
 * call holds only the damaged block, and every sample before it plays. */
static void inflate(struct mon_player *p, const char *z, size_t zlen, struct buf *out)
{
	int rc = inflate_by(p, z, zlen, SIZE_MAX, false, out);

	if (rc < 0) {
		buf_reset(out);
		p->nends = 0;
		rc = inflate_by(p, z, zlen, 1, true, out);
	}
	if (rc)
		p->damaged = true;
}

/* A varint at *@pos, which must end before @lim: the end of the record
 * it is read from, so that no length read after it can pass its end. */
static bool get_varint(const struct mon_player *p, size_t *pos, size_t lim, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		unsigned char c;

		if (*pos >= lim)
			return false;
		c = (unsigned char)p->data[(*pos)++];
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

/* Where the frame holding p->pos ends in the decompressed data. */
static size_t frame_end(struct mon_player *p)
{
	while (p->iend < p->nends && p->ends[p->iend] <= p->pos)
		p->iend++;
	return p->iend < p->nends ? p->ends[p->iend] : p->len;
}

/* Goes on at the next frame, after damage; false when there is none. */
static bool skip_frame(struct mon_player *p)
{
	size_t end = frame_end(p);

	p->damaged = true;
	if (end >= p->len)
		return false;
	p->pos = end;
	p->have_prev = false; /* until the frame's 'T' record */
	return true;
}

/* The next record: its tag and payload bounds; false when none is whole.
 * A record never spans frames: one that does was torn by damage. */
static bool next_record(struct mon_player *p, char *tag, size_t *start, size_t *end)
{
	size_t pos, lim;
	uint64_t len;

	for (;;) {
		lim = frame_end(p);
		pos = p->pos + 1;
		if (p->pos < lim && get_varint(p, &pos, lim, &len) && len <= lim - pos)
			break;
		if (p->pos >= p->len || !skip_frame(p))
			return false;
	}
	*tag = p->data[p->pos];
	*start = pos;
	*end = pos + len;
	p->pos = *end;
	return true;
}

int mon_player_open(struct mon_player *p, const char *path)
{
	struct buf out = BUF_INIT, raw = BUF_INIT;
	size_t hs, he;
	char tag;
	size_t ml = strlen(MON_MAGIC);

	memset(p, 0, sizeof(*p));
	if (file_read_all(path, &raw) < 0)
		return -1;
	if (raw.len < ml || memcmp(raw.data, MON_MAGIC, ml)) {
		buf_release(&raw);
		return err_set(ERR_PARSE, "%s is not a veles monitor recording", path);
	}
	inflate(p, raw.data + ml, raw.len - ml, &out);
	buf_release(&raw);
	p->data = buf_detach(&out, &p->len);
	if (!next_record(p, &tag, &hs, &he) || tag != 'H') {
		mon_player_close(p);
		return err_set(ERR_PARSE, "%s: no header (the recording is damaged)", path);
	}
	p->header = xstrndup(p->data + hs, he - hs);
	return 0;
}

static uint64_t unzigzag(uint64_t v)
{
	return (v >> 1) ^ (~(v & 1) + 1);
}

/* @n values, each @base's plus a zigzag varint difference (@base NULL:
 * from zero). The position is kept in a local: stores to @out could alias
 * it otherwise, and it would be reloaded for every value. */
static bool decode_values(const struct mon_player *p, size_t *pos, size_t end, const uint64_t *base,
			  uint64_t *out, size_t n)
{
	const unsigned char *data = (const unsigned char *)p->data;
	size_t at = *pos;

	for (size_t i = 0; i < n; i++) {
		uint64_t d;

		/* Most differences fit one byte. */
		if (at < end && data[at] < 0x80) {
			d = data[at++];
		} else if (!get_varint(p, &at, end, &d)) {
			return false;
		}
		out[i] = (base ? base[i] : 0) + unzigzag(d);
	}
	*pos = at;
	return at <= end;
}

/* Makes @out's rows those of @base, copying names only when they differ. */
static void same_rows_as(struct mon_table *out, const struct mon_table *base, size_t ncols)
{
	if (out->cap < base->nrows) {
		out->cap = base->nrows;
		out->names = xrealloc(out->names, out->cap * sizeof(*out->names));
		out->vals =
			xrealloc(out->vals, out->cap * (ncols ? ncols : 1) * sizeof(*out->vals));
	}
	if (base->nrows && (out->gen != base->gen || out->nrows != base->nrows))
		memcpy(out->names, base->names, base->nrows * sizeof(*base->names));
	out->nrows = base->nrows;
	out->gen = base->gen;
}

/* Row names (when sent) and values of one table into @out, the values as
 * differences from @base's. */
static bool decode_table(struct mon_player *p, size_t *pos, size_t end,
			 const struct mon_table *base, struct mon_table *out, size_t ncols)
{
	uint64_t nrows;
	bool renamed;

	if (!get_varint(p, pos, end, &nrows) || *pos >= end || nrows > 1u << 20)
		return false;
	renamed = p->data[(*pos)++];
	if (renamed) {
		mon_table_reset(out);
		out->gen = ++p->gen;
		for (uint64_t r = 0; r < nrows; r++) {
			size_t n = *pos < end ? (unsigned char)p->data[*pos] : 0;

			if (*pos + 1 + n > end)
				return false;
			mon_table_add(out, p->data + *pos + 1, n, ncols);
			*pos += 1 + n;
		}
	} else if (nrows != base->nrows) {
		return false;
	} else {
		same_rows_as(out, base, ncols);
	}
	return decode_values(p, pos, end, renamed ? NULL : base->vals, out->vals, nrows * ncols);
}

static bool decode_modrecs(struct mon_player *p, size_t *pos, size_t end, struct mon_sample *s)
{
	uint64_t n, module, len;

	if (!get_varint(p, pos, end, &n))
		return false;
	for (uint64_t i = 0; i < n; i++) {
		if (!get_varint(p, pos, end, &module) || !get_varint(p, pos, end, &len) ||
		    len > end - *pos)
			return false;
		mon_sample_add_modrec(s, (unsigned)module, p->data + *pos, len);
		*pos += len;
	}
	return true;
}

/* Decodes into @s, after @base. */
static bool decode_sample(struct mon_player *p, size_t pos, size_t end,
			  const struct mon_sample *base, struct mon_sample *s)
{
	uint64_t dt, present;

	if (!get_varint(p, &pos, end, &dt) || !get_varint(p, &pos, end, &present))
		return false;
	p->us = (p->have_prev ? p->us : 0) + (int64_t)unzigzag(dt);
	s->t = (double)p->us / 1e6;
	for (size_t i = 0; i < s->nmod; i++)
		free(s->mod[i].line);
	s->nmod = 0;
	for (int t = 0; t < MT_COUNT; t++) {
		if (!(present & (1u << t))) {
			mon_table_reset(&s->tab[t]);
			continue;
		}
		if (!decode_table(p, &pos, end, &base->tab[t], &s->tab[t], mon_tabdefs[t].ncols))
			return false;
	}
	s->present = (unsigned)present;
	return decode_modrecs(p, &pos, end, s) && pos == end;
}

int mon_player_next(struct mon_player *p, const struct mon_sample **s)
{
	size_t start, end;
	char tag;

	for (;;) {
		unsigned next = p->cur ^ 1;

		if (!next_record(p, &tag, &start, &end)) {
			if (p->pos < p->len)
				p->damaged = true;
			return 0;
		}
		if (tag == 'T') {
			uint64_t us;

			if (get_varint(p, &start, end, &us)) {
				p->us = (int64_t)us;
				p->have_prev = true;
			}
			continue;
		}
		if (tag != 'S')
			continue; /* a record kind of a later version */
		/* Damage that zstd did not see (its checksums are off) shows
		 * here: the samples before it have been played, and playback
		 * goes on at the next frame. */
		if (!decode_sample(p, start, end, &p->s[p->cur], &p->s[next])) {
			if (!skip_frame(p))
				return 0;
			p->gaps++;
			continue;
		}
		p->cur = next;
		p->have_prev = true;
		p->nsamples++;
		*s = &p->s[next];
		return 1;
	}
}

void mon_player_close(struct mon_player *p)
{
	free(p->data);
	free(p->header);
	free(p->ends);
	mon_sample_release(&p->s[0]);
	mon_sample_release(&p->s[1]);
	memset(p, 0, sizeof(*p));
}

/* The value of @key's line in @header, and its length in *@n. */
static const char *header_value(const char *header, const char *key, size_t *n)
{
	size_t k = strlen(key);

	for (const char *l = header; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, key, k) && l[k] == ':' && l[k + 1] == ' ') {
			*n = strcspn(l + k + 2, "\n");
			return l + k + 2;
		}
	return NULL;
}

bool mon_header_get(const char *header, const char *key, char *out, size_t cap)
{
	size_t n;
	const char *v = header_value(header, key, &n);

	if (!v)
		return false;
	if (n >= cap)
		n = cap - 1;
	memcpy(out, v, n);
	out[n] = '\0';
	return true;
}

char *mon_header_dup(const char *header, const char *key)
{
	size_t n;
	const char *v = header_value(header, key, &n);

	return v ? xstrndup(v, n) : NULL;
}

bool mon_file_is_recording(const char *path)
{
	char head[sizeof(MON_MAGIC) - 1];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool is;

	if (fd < 0)
		return false;
	is = read(fd, head, sizeof(head)) == (ssize_t)sizeof(head) &&
	     memcmp(head, MON_MAGIC, sizeof(head)) == 0;
	close(fd);
	return is;
}
