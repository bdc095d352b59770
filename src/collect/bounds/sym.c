/* Bound expressions (sym.h): canonical polynomials over interned atoms,
 * built and compared by sign; sym_print.c writes them, sym_class.c ranks
 * and evaluates them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collect/bounds/sym.h"
#include "collect/bounds/sym_priv.h"
#include "util/buf.h"
#include "util/common.h"

static void *arena(struct sym_ctx *x, size_t size)
{
	void *p = xcalloc(1, size ? size : 1);

	XGROW(x->mem, (size_t)x->nmem + 1, x->mem_cap);
	x->mem[x->nmem++] = p;
	return p;
}

struct sym_ctx *sym_ctx_new(const char *const *names, int nnames)
{
	struct sym_ctx *x = xcalloc(1, sizeof(*x));
	struct poly *inf, *zero;

	x->names = xcalloc((size_t)nnames + 1, sizeof(*x->names));
	for (int i = 0; i < nnames; i++)
		x->names[i] = xstrdup(names[i] ? names[i] : "?");
	x->nnames = nnames;
	inf = arena(x, sizeof(*inf));
	inf->inf = true;
	zero = arena(x, sizeof(*zero));
	x->inf = inf;
	x->zero = zero;
	return x;
}

void sym_ctx_free(struct sym_ctx *x)
{
	if (!x)
		return;
	for (int i = 0; i < x->nmem; i++)
		free(x->mem[i]);
	for (int i = 0; i < x->nnames; i++)
		free(x->names[i]);
	free(x->names);
	free(x->mem);
	free(x->atoms);
	free(x);
}

/* ---- canonical form ---- */

static int mono_cmp_atoms(const struct mono *a, const struct mono *b)
{
	if (a->na != b->na)
		return a->na < b->na ? -1 : 1;
	for (int i = 0; i < a->na; i++)
		if (a->a[i] != b->a[i])
			return a->a[i] < b->a[i] ? -1 : 1;
	return 0;
}

static int mono_qsort(const void *a, const void *b)
{
	return mono_cmp_atoms(a, b);
}

static bool poly_eq(const struct poly *a, const struct poly *b)
{
	if (a == b)
		return true;
	if (a->inf != b->inf || a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++)
		if (a->m[i].c != b->m[i].c || mono_cmp_atoms(&a->m[i], &b->m[i]) != 0)
			return false;
	return true;
}

/* Sorts and merges @m (n of them, scratch), dropping zero terms. */
static const struct poly *make_poly(struct sym_ctx *x, struct mono *m, int n)
{
	struct poly *p;
	struct mono *out;
	int o = 0;

	qsort(m, (size_t)n, sizeof(*m), mono_qsort);
	for (int i = 0; i < n; i++) {
		if (o > 0 && mono_cmp_atoms(&m[o - 1], &m[i]) == 0) {
			if (__builtin_add_overflow(m[o - 1].c, m[i].c, &m[o - 1].c))
				return x->inf;
			if (m[o - 1].c == 0)
				o--;
			continue;
		}
		if (m[i].c != 0)
			m[o++] = m[i];
	}
	p = arena(x, sizeof(*p));
	out = arena(x, (size_t)o * sizeof(*out));
	if (o)
		memcpy(out, m, (size_t)o * sizeof(*out));
	p->n = o;
	p->m = out;
	return p;
}

static bool atom_eq(const struct atom *a, const struct atom *b)
{
	if (a->kind != b->kind || a->k != b->k || a->sym != b->sym)
		return false;
	if (a->kind == AT_MAX0 && !lin_eq(&a->l, &b->l))
		return false;
	if ((a->p || b->p) && (!a->p || !b->p || !poly_eq(a->p, b->p)))
		return false;
	if ((a->q || b->q) && (!a->q || !b->q || !poly_eq(a->q, b->q)))
		return false;
	return true;
}

static const struct poly *atom_poly(struct sym_ctx *x, const struct atom *a)
{
	struct mono m;
	int id = -1;

	for (int i = 0; i < x->natoms && id < 0; i++)
		if (atom_eq(&x->atoms[i], a))
			id = i;
	if (id < 0) {
		XGROW(x->atoms, (size_t)x->natoms + 1, x->atoms_cap);
		x->atoms[x->natoms] = *a;
		id = x->natoms++;
	}
	memset(&m, 0, sizeof(m));
	m.c = 1;
	m.na = 1;
	m.a[0] = id;
	return make_poly(x, &m, 1);
}

/* ---- building ---- */

const struct poly *sym_const(struct sym_ctx *x, int64_t c)
{
	struct mono m;

	memset(&m, 0, sizeof(m));
	m.c = c;
	return make_poly(x, &m, 1);
}

const struct poly *sym_inf(struct sym_ctx *x)
{
	return x->inf;
}

bool sym_is_inf(const struct poly *a)
{
	return a->inf;
}

bool sym_is_const(const struct poly *a, int64_t *c)
{
	if (a->inf || a->n > 1 || (a->n == 1 && a->m[0].na))
		return false;
	*c = a->n ? a->m[0].c : 0;
	return true;
}

const struct poly *sym_lin(struct sym_ctx *x, const struct lin *l)
{
	const struct poly *r;

	if (l->bad)
		return x->inf;
	r = sym_const(x, l->c);
	for (int i = 0; i < l->n; i++) {
		struct atom a;

		memset(&a, 0, sizeof(a));
		a.kind = AT_SYM;
		a.sym = l->var[i];
		r = sym_add(x, r, sym_scale(x, atom_poly(x, &a), l->k[i]));
	}
	return r;
}

const struct poly *sym_add(struct sym_ctx *x, const struct poly *a, const struct poly *b)
{
	struct mono *m;
	const struct poly *r;

	if (a->inf || b->inf)
		return x->inf;
	m = xmalloc(((size_t)a->n + (size_t)b->n + 1) * sizeof(*m));
	/* The zero polynomial has no terms, and no array. */
	if (a->n)
		memcpy(m, a->m, (size_t)a->n * sizeof(*m));
	if (b->n)
		memcpy(m + a->n, b->m, (size_t)b->n * sizeof(*m));
	r = make_poly(x, m, a->n + b->n);
	free(m);
	return r;
}

const struct poly *sym_mul(struct sym_ctx *x, const struct poly *a, const struct poly *b)
{
	struct mono *m;
	const struct poly *r;
	int n = 0;

	if (a->inf || b->inf)
		return x->inf;
	m = xmalloc(((size_t)a->n * (size_t)b->n + 1) * sizeof(*m));
	for (int i = 0; i < a->n; i++) {
		for (int j = 0; j < b->n; j++) {
			const struct mono *p = &a->m[i], *q = &b->m[j];
			struct mono *o = &m[n++];
			int u = 0, v = 0;

			if (p->na + q->na > MONO_MAX || __builtin_mul_overflow(p->c, q->c, &o->c)) {
				free(m);
				return x->inf;
			}
			o->na = 0;
			while (u < p->na || v < q->na)
				o->a[o->na++] = (v >= q->na || (u < p->na && p->a[u] <= q->a[v]))
							? p->a[u++]
							: q->a[v++];
		}
	}
	r = make_poly(x, m, n);
	free(m);
	return r;
}

const struct poly *sym_scale(struct sym_ctx *x, const struct poly *a, int64_t c)
{
	return sym_mul(x, a, sym_const(x, c));
}

const struct poly *sym_addc(struct sym_ctx *x, const struct poly *a, int64_t c)
{
	return sym_add(x, a, sym_const(x, c));
}

/* ---- signs ---- */

static bool atom_nonneg(const struct sym_ctx *x, int id)
{
	const struct atom *a = &x->atoms[id];

	return a->kind != AT_SYM &&
	       (a->kind != AT_MAX || sym_nonneg(x, a->p) || sym_nonneg(x, a->q));
}

static bool mono_nonneg_atoms(const struct sym_ctx *x, const struct mono *m)
{
	for (int i = 0; i < m->na; i++) {
		/* A symbol squared is never negative either. */
		if (x->atoms[m->a[i]].kind == AT_SYM) {
			if (i + 1 < m->na && m->a[i + 1] == m->a[i]) {
				i++;
				continue;
			}
			return false;
		}
		if (!atom_nonneg(x, m->a[i]))
			return false;
	}
	return true;
}

/* max(0, l) >= max(0, l') when l - l' is a constant >= 0. */
static bool max0_dominates(const struct sym_ctx *x, int big, int small)
{
	const struct atom *a = &x->atoms[big], *b = &x->atoms[small];

	return a->kind == AT_MAX0 && b->kind == AT_MAX0 && lin_same_vars(&a->l, &b->l) &&
	       a->l.c >= b->l.c;
}

bool sym_nonneg(const struct sym_ctx *x, const struct poly *a)
{
	bool *used;
	bool ok = true;

	if (a->inf)
		return true;
	used = xcalloc((size_t)a->n + 1, sizeof(*used));
	for (int i = 0; i < a->n && ok; i++) {
		const struct mono *m = &a->m[i];

		if (m->c > 0 && (m->na == 0 || mono_nonneg_atoms(x, m)))
			continue;
		/* -c max(0, l') is paid for by +c' max(0, l) with c' >= c. */
		ok = false;
		if (m->c < 0 && m->na == 1) {
			for (int j = 0; j < a->n && !ok; j++) {
				const struct mono *p = &a->m[j];

				if (used[j] || p->na != 1 || p->c < -m->c ||
				    !max0_dominates(x, p->a[0], m->a[0]))
					continue;
				used[j] = ok = true;
			}
		}
	}
	free(used);
	return ok;
}

static const struct poly *neg(struct sym_ctx *x, const struct poly *a)
{
	return sym_scale(x, a, -1);
}

static bool nonpos(struct sym_ctx *x, const struct poly *a)
{
	return sym_nonneg(x, neg(x, a));
}

/* The linear form of @a when it is one over symbols. */
bool sym_as_lin(const struct sym_ctx *x, const struct poly *a, struct lin *out)
{
	struct lin r = lin_const(0);

	if (a->inf)
		return false;
	for (int i = 0; i < a->n; i++) {
		const struct mono *m = &a->m[i];
		struct lin t;

		if (m->na == 0) {
			r = lin_addc(&r, m->c);
			continue;
		}
		if (m->na != 1 || x->atoms[m->a[0]].kind != AT_SYM)
			return false;
		t = lin_var(x->atoms[m->a[0]].sym);
		r = lin_addmul(&r, m->c, &t);
	}
	*out = r;
	return !r.bad;
}

const struct poly *sym_max0(struct sym_ctx *x, const struct poly *a)
{
	struct atom at;
	struct lin l;
	int64_t c;

	if (a->inf)
		return x->inf;
	if (sym_nonneg(x, a))
		return a;
	if (nonpos(x, a))
		return x->zero;
	memset(&at, 0, sizeof(at));
	if (sym_as_lin(x, a, &l)) {
		at.kind = AT_MAX0;
		at.l = l;
		return atom_poly(x, &at);
	}
	/* max(0, max(0, l) + c) = max(0, l + c) when c <= 0. */
	if (a->n == 2 && a->m[0].na == 0 && (c = a->m[0].c) <= 0 && a->m[1].c == 1 &&
	    a->m[1].na == 1 && x->atoms[a->m[1].a[0]].kind == AT_MAX0) {
		at.kind = AT_MAX0;
		at.l = lin_addc(&x->atoms[a->m[1].a[0]].l, c);
		if (!at.l.bad)
			return atom_poly(x, &at);
	}
	at.kind = AT_MAX;
	at.p = x->zero;
	at.q = a;
	return atom_poly(x, &at);
}

const struct poly *sym_max(struct sym_ctx *x, const struct poly *a, const struct poly *b)
{
	const struct poly *d;
	struct atom at;
	int64_t c;

	if (a->inf || b->inf)
		return x->inf;
	d = sym_add(x, b, neg(x, a));
	if (sym_nonneg(x, d))
		return b;
	if (nonpos(x, d))
		return a;
	if (sym_is_const(a, &c) && c == 0)
		return sym_max0(x, b);
	if (sym_is_const(b, &c) && c == 0)
		return sym_max0(x, a);
	memset(&at, 0, sizeof(at));
	at.kind = AT_MAX;
	at.p = a;
	at.q = b;
	return atom_poly(x, &at);
}

static int64_t ilog(int64_t k, int64_t v)
{
	int64_t r = 0;

	while (v >= k) {
		v /= k;
		r++;
	}
	return r;
}

const struct poly *sym_log(struct sym_ctx *x, int64_t k, const struct poly *a)
{
	struct atom at;
	int64_t c;

	if (a->inf)
		return x->inf;
	if (sym_is_const(a, &c))
		return sym_const(x, ilog(k, c < 1 ? 1 : c));
	memset(&at, 0, sizeof(at));
	at.kind = AT_LOG;
	at.k = k;
	at.p = a;
	return atom_poly(x, &at);
}

const struct poly *sym_ceildiv(struct sym_ctx *x, const struct poly *a, int64_t k)
{
	struct atom at;
	struct mono *m;
	const struct poly *r;
	int64_t c;
	bool exact = true;

	if (a->inf)
		return x->inf;
	if (k <= 1)
		return a;
	if (sym_is_const(a, &c))
		return sym_const(x, c <= 0 ? 0 : (c + k - 1) / k);
	for (int i = 0; i < a->n; i++)
		exact &= a->m[i].c % k == 0;
	if (exact) {
		m = xmalloc(((size_t)a->n + 1) * sizeof(*m));
		if (a->n)
			memcpy(m, a->m, (size_t)a->n * sizeof(*m));
		for (int i = 0; i < a->n; i++)
			m[i].c /= k;
		r = make_poly(x, m, a->n);
		free(m);
		return r;
	}
	memset(&at, 0, sizeof(at));
	at.kind = AT_CEIL;
	at.k = k;
	at.p = a;
	return atom_poly(x, &at);
}
