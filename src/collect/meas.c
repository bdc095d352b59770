/* Measurements into a profile, one unit per profile (meas.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/meas.h"
#include "collect/units.h"
#include "profile/numfmt.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/strmap.h"

/* Longest unit text remembered between records: "ns", "KiB", "items/s". */
#define UNIT_CACHE 32

/*
 * How to turn an amount of one unit into another: multiply by @mul or divide
 * by @div. Dividing 0.5 us by 1000 rounds once, where multiplying by the
 * ratio 1e-9 / 1e-6 (not exact in binary) would print 0.00049999999999999.
 */
struct conv {
	double mul, div;
	int exp10; /* mul 10^k or div 10^-k: the conversion as a decimal shift */
	bool pow10;
};

struct meas {
	struct profile *p;
	bool decided;	    /* the profile's unit is known */
	bool by_record;	    /* ... from a record's unit, not given */
	struct unit target; /* its dimension and scale */
	char *unit_name;    /* as written in header.units; "" when none */
	int64_t order;
	struct strmap types; /* "uid\x1fsubtype" -> index into @rows */
	uint32_t *rows;
	size_t nrows, rows_cap;
	size_t amount_col, order_col; /* indices into p->res.cols */
	struct buf key, text;
	char last_text[UNIT_CACHE]; /* the last record's unit, parsed into @last */
	size_t last_len;
	struct unit last;
	struct conv last_conv; /* from @last to the profile's unit, when @conv_ok */
	bool conv_ok;
};

/* The power of ten @x is (within rounding), or false. */
static bool log10_of(double x, int *k)
{
	double l = round(log10(x));

	*k = (int)l;
	return fabs(x - pow(10, l)) < 1e-9 * x;
}

static struct conv conv_of(double from, double to)
{
	double r = from / to;
	struct conv c = {r, 1, 0, false};

	if (r >= 1 && fabs(r - round(r)) < 1e-9 * r)
		c = (struct conv){round(r), 1, 0, false};
	else if (r < 1 && fabs(1 / r - round(1 / r)) < 1e-9 / r)
		c = (struct conv){1, round(1 / r), 0, false};
	c.pow10 = log10_of(c.div != 1 ? c.div : c.mul, &c.exp10);
	if (c.div != 1)
		c.exp10 = -c.exp10;
	return c;
}

/*
 * @text, the amount as printed, shifted by @exp10 decimal places and read
 * once: "12.345" ms is 12.345e-3 s, the double nearest 0.012345, which a
 * profile prints as 0.012345; 12.345 / 1000 in binary may be an ulp off and
 * print as 0.012344999999999999. False when @text is no plain number.
 */
static bool shifted(const char *text, size_t len, int exp10, double *v)
{
	const char *e = memchr(text, 'e', len);
	char tmp[40 + 2 + NUMFMT_MAX], *end;
	long exp = 0;
	int64_t i;
	size_t n;

	if (!e)
		e = memchr(text, 'E', len);
	if (e) {
		exp = strtol(e + 1, &end, 10);
		if (end != text + len || exp < -400 || exp > 400)
			return false;
		len = (size_t)(e - text);
	}
	if (!len || len > 40)
		return false;
	/* printf would cost more than the rest of the record. */
	memcpy(tmp, text, len);
	tmp[len] = 'e';
	n = len + 1 + numfmt_i64(tmp + len + 1, exp + exp10);
	switch (numfmt_parse(tmp, n, &i, v)) {
	case NUM_INT:
		*v = (double)i;
		return true;
	case NUM_DBL:
		return true;
	default:
		return false;
	}
}

static double convert(struct conv c, double v)
{
	return c.div != 1 ? v / c.div : v * c.mul;
}

static void decide(struct meas *m, const char *text, size_t len)
{
	unit_parse(text, len, &m->target);
	free(m->unit_name);
	if (m->target.dim == UNIT_OTHER)
		m->unit_name = xasprintf("%.*s", (int)len, text);
	else
		m->unit_name = xstrdup(m->target.name ? m->target.name : "");
	m->decided = true;
	m->conv_ok = false;
}

struct meas *meas_new(const char *unit)
{
	struct meas *m = xcalloc(1, sizeof(*m));

	m->p = profile_new();
	m->p->layout = LAYOUT_TYPED;
	m->unit_name = xstrdup("");
	unit_parse("", 0, &m->last);
	if (unit)
		decide(m, unit, strlen(unit));
	/* Both columns exist before any other, so their indices stay put. */
	table_col_get(m->p, &m->p->res, "amount", COL_F64);
	table_col_get(m->p, &m->p->res, "order", COL_I64);
	m->amount_col = 0;
	m->order_col = 1;
	return m;
}

void meas_free(struct meas *m)
{
	if (!m)
		return;
	profile_free(m->p);
	free(m->unit_name);
	strmap_free(&m->types);
	free(m->rows);
	buf_release(&m->key);
	buf_release(&m->text);
	free(m);
}

void meas_set_order(struct meas *m, int64_t order)
{
	m->order = order;
}

size_t meas_count(const struct meas *m)
{
	return m->p ? profile_nres(m->p) : 0;
}

const char *meas_unit(const struct meas *m)
{
	return m->unit_name;
}

const struct profile *meas_profile(const struct meas *m)
{
	return m->p;
}

/* The record's unit, parsed once for a run of records that share it. */
static const struct unit *rec_unit(struct meas *m, const char *text, size_t len)
{
	if (len != m->last_len || len >= UNIT_CACHE || memcmp(text, m->last_text, len) != 0) {
		unit_parse(text, len, &m->last);
		m->last_len = len < UNIT_CACHE ? len : 0;
		memcpy(m->last_text, text, m->last_len);
		m->conv_ok = false;
	}
	return &m->last;
}

/* From the record's unit to the profile's, or an error. */
static int conversion(struct meas *m, const struct meas_rec *r, struct conv *c)
{
	size_t len = r->unit ? r->unit_len : 0;
	const struct unit *u = rec_unit(m, r->unit ? r->unit : "", len);

	if (!m->decided) {
		/* A time or a size settles on the base unit, so two versions
		 * that print ms and us still give comparable profiles. */
		if (u->dim == UNIT_TIME || u->dim == UNIT_MEMORY)
			decide(m, u->dim == UNIT_TIME ? "s" : "B", 1);
		else
			decide(m, r->unit ? r->unit : "", len);
		m->by_record = u->dim != UNIT_NONE;
	}
	*c = (struct conv){1, 1, 0, true};
	/* Without a unit, an amount is in the unit the user or the format
	 * gave; where other lines said theirs, it may be anything. */
	if (u->dim == UNIT_NONE && m->by_record)
		return err_set(ERR_INVALID, "no unit, where the amounts are in %s", m->unit_name);
	if (u->dim == UNIT_NONE)
		return 0;
	if (u->dim == m->target.dim && u->dim != UNIT_OTHER) {
		if (!m->conv_ok)
			m->last_conv = conv_of(u->scale, m->target.scale);
		m->conv_ok = true;
		*c = m->last_conv;
		return 0;
	}
	if (u->dim == UNIT_OTHER && m->target.dim == UNIT_OTHER && strlen(m->unit_name) == len &&
	    memcmp(m->unit_name, r->unit, len) == 0)
		return 0;
	if (m->target.dim == UNIT_NONE)
		return err_set(ERR_INVALID, "unit '%.*s' where the amounts have none", (int)len,
			       r->unit);
	return err_set(ERR_INVALID, "unit '%.*s' does not convert to %s", (int)len, r->unit,
		       m->unit_name);
}

/* The resource type of (uid, subtype), added on first sight. */
static uint32_t type_row(struct meas *m, const struct meas_rec *r)
{
	bool added;
	size_t i;

	buf_reset(&m->key);
	buf_add(&m->key, r->uid, r->uid_len);
	buf_addc(&m->key, r->subtype ? '\x1f' : '\x1e');
	if (r->subtype)
		buf_add(&m->key, r->subtype, r->subtype_len);
	i = strmap_intern(&m->types, buf_str(&m->key), &added);
	if (added) {
		const char *type = unit_dim_type(m->target.dim);
		char *uid = xasprintf("%.*s", (int)r->uid_len, r->uid);
		char *sub = r->subtype ? xasprintf("%.*s", (int)r->subtype_len, r->subtype) : NULL;
		struct attr a[] = {
			{.name = "uid", .kind = COL_STR, .s = uid},
			{.name = "type", .kind = COL_STR, .s = type},
			{.name = "subtype", .kind = COL_STR, .s = sub},
		};

		m->rows = xgrow(m->rows, sizeof(*m->rows), m->nrows + 1, &m->rows_cap);
		m->rows[m->nrows++] = profile_type_add(m->p, a, sub ? 3 : 2);
		free(uid);
		free(sub);
	}
	return m->rows[i];
}

static void set_field(struct meas *m, size_t row, const struct meas_field *f, struct conv c)
{
	struct attr a = {.name = f->name};

	if (!f->is_num) {
		buf_reset(&m->text);
		buf_add(&m->text, f->text, f->len);
		a.kind = COL_STR;
		a.s = buf_str(&m->text);
	} else if (!f->scaled && f->num == floor(f->num) && fabs(f->num) < 9007199254740992.0) {
		a.kind = COL_I64;
		a.i = (int64_t)f->num;
	} else {
		a.kind = COL_F64;
		a.f = f->scaled ? convert(c, f->num) : f->num;
	}
	if (a.kind != COL_F64 || isfinite(a.f))
		table_set(m->p, &m->p->res, row, &a);
}

int meas_add(struct meas *m, const struct meas_rec *r)
{
	struct conv c;
	double amount;
	size_t row;
	int ret = conversion(m, r, &c);

	if (ret < 0)
		return ret;
	if (!(c.pow10 && c.exp10 && r->amount_text &&
	      shifted(r->amount_text, r->amount_len, c.exp10, &amount)))
		amount = convert(c, r->amount);
	if (!isfinite(amount))
		return err_set(ERR_INVALID, "amount %g is not a finite number", r->amount);
	row = profile_res_add(m->p, type_row(m, r));
	col_set_f64(&m->p->res, &m->p->res.cols[m->amount_col], row, amount);
	if (m->order > 0)
		col_set_i64(&m->p->res, &m->p->res.cols[m->order_col], row, m->order);
	for (size_t i = 0; i < r->nfields; i++)
		set_field(m, row, &r->fields[i], c);
	return 0;
}

struct profile *meas_take(struct meas *m)
{
	struct profile *p = m->p;
	const char *type = unit_dim_type(m->decided ? m->target.dim : UNIT_NONE);

	m->p = NULL;
	free(p->type);
	p->type = xstrdup(type);
	if (*m->unit_name) {
		p->units = xcalloc(1, sizeof(*p->units));
		p->units[0] = (struct kv){xstrdup(type), xstrdup(m->unit_name)};
		p->nunits = 1;
	}
	return p;
}
