/*
 * A column's values in the compact form, read back: each encoding of
 * compact_values.c, every count and index checked against what the
 * column has left before it is used.
 */
#include <stdlib.h>
#include <string.h>

#include "profile/compact_dec_priv.h"
#include "profile/compact_priv.h"
#include "profile/profile_priv.h"
#include "util/common.h"
#include "util/strpool.h"

/* Which rows have a value, into @absent (NULL: all of them). */
int read_presence(struct dec *d, struct cur *c, uint64_t len, uint8_t **absent, uint64_t *npresent)
{
	uint64_t nruns, r = 0, k;
	unsigned flag = cur_u8(c);

	*absent = NULL;
	*npresent = len;
	if (flag == 0)
		return c->bad ? corrupt(d, "a column is cut short") : 0;
	nruns = cur_varint(c);
	if (flag != 1 || c->bad || nruns > (uint64_t)(c->end - c->p))
		return corrupt(d, "bad presence runs");
	*absent = xcalloc((size_t)len + 1, 1);
	*npresent = 0;
	for (k = 0; k < nruns; k++) {
		uint64_t n = cur_varint(c);

		if (c->bad || n > len - r)
			return corrupt(d, "bad presence runs");
		if (k & 1)
			memset(*absent + r, 1, (size_t)n);
		else
			*npresent += n;
		r += n;
	}
	return r == len ? 0 : corrupt(d, "bad presence runs");
}

static inline int64_t wrap_add(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* ENC_GROUPED's per-group bookkeeping (see read_grouped). */
struct gstate {
	size_t *rows, *kpos, *idx, (*n)[3], (*base)[3], (*j)[3];
	uint8_t (*w)[3];
	int64_t *prev;
	struct fenwick fw[2];
};

static void gstate_free(struct gstate *s)
{
	free(s->rows);
	free(s->kpos);
	free(s->idx);
	free(s->n);
	free(s->base);
	free(s->j);
	free(s->w);
	free(s->prev);
	fw_release(&s->fw[0]);
	fw_release(&s->fw[1]);
}

/* The kinds, widths and planes of ENC_GROUPED, each checked against what
 * the column has left; *kinds and *planes point into it. */
static int grouped_layout(struct dec *d, struct cur *c, struct gstate *s, uint64_t len,
			  const uint8_t *absent, uint64_t npresent, const uint8_t **kinds,
			  const uint8_t **planes)
{
	uint64_t ng = d->ntypes, g, total = 0, rest;

	for (uint64_t r = 0; r < len; r++)
		if (!(absent && absent[r]))
			s->rows[d->p->res_type[r]]++;
	if (!(*kinds = cur_take(c, npresent)))
		return corrupt(d, "a column is cut short");
	for (g = 0; g < ng; g++) {
		s->kpos[g] = total;
		for (size_t i = 0; i < s->rows[g]; i++) {
			uint8_t k = (*kinds)[total + i];

			if (k > GK_EVEN)
				return corrupt(d, "bad value kind");
			s->n[g][k]++;
		}
		total += s->rows[g];
	}
	for (g = 0; g < ng; g++) {
		const uint8_t *w = s->rows[g] ? cur_take(c, 3) : NULL;

		for (int k = 0; w && k < 3; k++) {
			if (w[k] > 8)
				return corrupt(d, "bad width");
			s->w[g][k] = w[k];
		}
		if (s->rows[g] && !w)
			return corrupt(d, "a column is cut short");
	}
	rest = (uint64_t)(c->end - c->p);
	total = 0;
	for (g = 0; g < ng; g++)
		for (int k = 0; k < 3; k++) {
			uint64_t n = s->n[g][k], w = s->w[g][k];

			if (n && w > (rest - total) / n)
				return corrupt(d, "a column is cut short");
			s->base[g][k] = total;
			total += n * w;
		}
	*planes = cur_take(c, total);
	return 0;
}

/*
 * ENC_GROUPED (compact_enc.c says how it is written): the values of
 * each row in row order, each group's kinds and numbers read where its
 * own run of them goes on.
 */
static int read_grouped(struct dec *d, struct cur *c, unsigned flags, int64_t *v, uint64_t len,
			const uint8_t *absent, uint64_t npresent)
{
	uint64_t ng = d->ntypes;
	struct gstate s;
	const uint8_t *kinds = NULL, *planes = NULL;
	int ret = 0;

	if (!d->res_col || !d->p->res_type)
		return corrupt(d, "grouped values outside the resources");
	memset(&s, 0, sizeof(s));
	s.rows = xcalloc(ng + 1, sizeof(*s.rows));
	s.kpos = xcalloc(ng + 1, sizeof(*s.kpos));
	s.idx = xcalloc(ng + 1, sizeof(*s.idx));
	s.n = xcalloc(ng + 1, sizeof(*s.n));
	s.base = xcalloc(ng + 1, sizeof(*s.base));
	s.j = xcalloc(ng + 1, sizeof(*s.j));
	s.w = xcalloc(ng + 1, sizeof(*s.w));
	s.prev = xcalloc(ng + 1, sizeof(*s.prev));
	fw_init(&s.fw[0], (size_t)len);
	fw_init(&s.fw[1], (size_t)len);
	ret = grouped_layout(d, c, &s, len, absent, npresent, &kinds, &planes);
	for (uint64_t r = 0; ret == 0 && r < len; r++) {
		uint32_t g = d->p->res_type[r];
		uint64_t num = 0;
		uint8_t k;
		size_t at;

		if (absent && absent[r]) {
			v[r] = 0;
			continue;
		}
		k = kinds[s.kpos[g] + s.idx[g]++];
		at = s.base[g][k] + s.j[g][k]++;
		for (unsigned b = 0; b < s.w[g][k]; b++)
			num |= (uint64_t)planes[at + b * s.n[g][k]] << (8 * b);
		if (k == GK_DELTA) {
			v[r] = flags & GF_DELTAS ? wrap_add(s.prev[g], zz_dec(num)) : zz_dec(num);
			fw_add(&s.fw[GK_ODD - 1], (size_t)r, 1);
		} else {
			struct fenwick *f = &s.fw[k - 1];
			size_t p;

			if (!(flags & GF_REFS) || num >= f->total) {
				ret = corrupt(d, "a back-reference points outside its column");
				break;
			}
			p = fw_kth(f, f->total - (uint32_t)num);
			v[r] = v[p];
			fw_add(f, p, -1);
			fw_add(&s.fw[(k == GK_ODD ? GK_EVEN : GK_ODD) - 1], (size_t)r, 1);
		}
		s.prev[g] = v[r];
	}
	gstate_free(&s);
	return ret;
}

/* The values of an integer encoding into @v[row] for each present row. */
static int read_ints(struct dec *d, struct cur *c, unsigned enc, int64_t *v, uint64_t len,
		     const uint8_t *absent, uint64_t npresent)
{
	int64_t prev = 0;
	unsigned width = 0;
	const uint8_t *planes = NULL;
	uint64_t r, k = 0;

	if (enc == ENC_CONST) {
		int64_t x = zz_dec(cur_varint(c));

		for (r = 0; r < len; r++)
			v[r] = absent && absent[r] ? 0 : x;
		return c->bad ? corrupt(d, "a column is cut short") : 0;
	}
	if (enc == ENC_PLANES) {
		width = cur_u8(c);
		if (width < 1 || width > 8 || npresent > (uint64_t)(c->end - c->p) / width)
			return corrupt(d, "a column is cut short");
		planes = cur_take(c, npresent * width);
	} else if (enc == ENC_GROUPED) {
		unsigned flags = cur_u8(c);

		if (flags > (GF_REFS | GF_DELTAS))
			return corrupt(d, "bad grouped flags");
		return read_grouped(d, c, flags, v, len, absent, npresent);
	} else if (enc > ENC_PLANES) {
		return corrupt(d, "unknown encoding");
	}
	for (r = 0; r < len; r++) {
		uint64_t u;

		if (absent && absent[r]) {
			v[r] = 0;
			continue;
		}
		if (enc == ENC_PLANES) {
			u = 0;
			for (unsigned b = 0; b < width; b++)
				u |= (uint64_t)planes[b * npresent + k] << (8 * b);
			v[r] = prev = wrap_add(prev, zz_dec(u));
			k++;
			continue;
		}
		u = cur_varint(c);
		if (enc == ENC_VARINT)
			v[r] = zz_dec(u);
		else if (enc == ENC_DELTA || !(u & 1))
			v[r] = wrap_add(prev, zz_dec(enc == ENC_DELTA ? u : u >> 1));
		else if ((u >> 1) == 0 || (u >> 1) > r)
			return corrupt(d, "a back-reference points outside its column");
		else
			v[r] = v[r - (u >> 1)];
		prev = v[r];
	}
	return c->bad ? corrupt(d, "a column is cut short") : 0;
}

static const double pow10_tab[] = {1e0, 1e1, 1e2,  1e3,	 1e4,  1e5,  1e6,  1e7,
				   1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

/* The doubles of ENC_DECIMAL or ENC_RAW, in place over @v. */
static int read_doubles(struct dec *d, struct cur *c, unsigned enc, int64_t *v, uint64_t len,
			const uint8_t *absent, uint64_t npresent)
{
	uint64_t r, k = 0;
	int ret;

	if (enc == ENC_DECIMAL) {
		unsigned scale = cur_u8(c), inner = cur_u8(c);
		double div;

		if (c->bad || scale >= ARRAY_SIZE(pow10_tab))
			return corrupt(d, "bad decimal scale");
		div = pow10_tab[scale];
		if ((ret = read_ints(d, c, inner, v, len, absent, npresent)) < 0)
			return ret;
		for (r = 0; r < len; r++) {
			double x = (double)v[r] / div;

			memcpy(&v[r], &x, 8);
		}
		return 0;
	}
	if (enc != ENC_RAW)
		return corrupt(d, "unknown encoding");
	if (npresent > (uint64_t)(c->end - c->p) / 8)
		return corrupt(d, "a column is cut short");
	{
		const uint8_t *planes = cur_take(c, npresent * 8);

		for (r = 0; r < len; r++) {
			uint64_t u = 0;

			if (absent && absent[r]) {
				v[r] = 0;
				continue;
			}
			for (unsigned b = 0; b < 8; b++)
				u |= (uint64_t)planes[b * npresent + k] << (8 * b);
			v[r] = (int64_t)u;
			k++;
		}
	}
	return 0;
}

/* String table indices into pool ids, in place (4-byte cells). */
static int take_ids(struct dec *d, int64_t *v, uint64_t len, const uint8_t *absent, bool json)
{
	uint32_t *ids = (uint32_t *)v;

	for (uint64_t r = 0; r < len; r++) {
		uint64_t i = (uint64_t)v[r];

		if (absent && absent[r]) {
			ids[r] = 0;
			continue;
		}
		if (i >= d->nstrs)
			return corrupt(d, "a cell names a string the table does not have");
		if (json && !d->checked[i]) {
			uint32_t id = d->strs[i];

			if (!cpt_json_ok(strpool_get(d->p->pool, id), strpool_len(d->p->pool, id)))
				return corrupt(d, "a JSON cell is not JSON");
			d->checked[i] = 1;
		}
		ids[r] = d->strs[i];
	}
	return 0;
}

/* Integers in 4-byte cells when they all fit, in place. */
bool narrow_ints(int64_t *v, uint64_t len)
{
	int32_t *n = (int32_t *)v;
	uint64_t r;

	for (r = 0; r < len; r++)
		if (v[r] < INT32_MIN || v[r] > INT32_MAX)
			return false;
	/* Cell r's 4 bytes lie at or before cell r's 8: read before written. */
	for (r = 0; r < len; r++)
		n[r] = (int32_t)v[r];
	return true;
}

/* The values of one column (or of the resources' types) into @v. */
int read_cells(struct dec *d, struct cur *c, unsigned kind, int64_t *v, uint64_t len,
	       const uint8_t *absent, uint64_t npresent)
{
	unsigned enc = cur_u8(c);
	int ret;

	if (kind == COL_F64)
		ret = read_doubles(d, c, enc, v, len, absent, npresent);
	else if (enc == ENC_DECIMAL || enc == ENC_RAW)
		ret = corrupt(d, "a double encoding in a column of another kind");
	else
		ret = read_ints(d, c, enc, v, len, absent, npresent);
	if (ret == 0 && (kind == COL_STR || kind == COL_JSON))
		ret = take_ids(d, v, len, absent, kind == COL_JSON);
	if (ret == 0 && c->p != c->end)
		ret = corrupt(d, "a column has bytes past its values");
	return ret;
}
