/* What a bound is worth (sym.h): its asymptotic class, its value at given
 * sizes, and which of two bounds is the better. */
#include <math.h>
#include <stdlib.h>

#include "collect/bounds/sym.h"
#include "collect/bounds/sym_priv.h"
#include "util/buf.h"
#include "util/common.h"

static struct sym_class cls_max(struct sym_class a, struct sym_class b)
{
	return sym_class_cmp(a, b) >= 0 ? a : b;
}

static struct sym_class atom_class(const struct sym_ctx *x, int id)
{
	const struct atom *a = &x->atoms[id];
	struct sym_class c = {false, 0, 0}, p;

	switch (a->kind) {
	case AT_SYM:
		c.deg = 1;
		break;
	case AT_MAX0:
		c.deg = a->l.n > 0;
		break;
	case AT_LOG:
		p = sym_class_of(x, a->p);
		c.log = p.deg > 0 || p.log > 0;
		break;
	case AT_CEIL:
		c = sym_class_of(x, a->p);
		break;
	case AT_MAX:
		c = cls_max(sym_class_of(x, a->p), sym_class_of(x, a->q));
		break;
	}
	return c;
}

struct sym_class sym_class_of(const struct sym_ctx *x, const struct poly *a)
{
	struct sym_class c = {a->inf, 0, 0};

	for (int i = 0; i < a->n && !a->inf; i++) {
		struct sym_class m = {false, 0, 0};

		for (int k = 0; k < a->m[i].na; k++) {
			struct sym_class t = atom_class(x, a->m[i].a[k]);

			m.deg += t.deg;
			m.log += t.log;
		}
		c = cls_max(c, m);
	}
	return c;
}

int sym_class_cmp(struct sym_class a, struct sym_class b)
{
	if (a.inf != b.inf)
		return a.inf ? 1 : -1;
	if (a.deg != b.deg)
		return a.deg < b.deg ? -1 : 1;
	if (a.log != b.log)
		return a.log < b.log ? -1 : 1;
	return 0;
}

void sym_class_print(struct sym_class c, struct buf *out)
{
	if (c.inf) {
		buf_adds(out, "O(∞)");
		return;
	}
	if (c.deg == 0 && c.log == 0) {
		buf_adds(out, "O(1)");
		return;
	}
	buf_adds(out, "O(");
	if (c.deg)
		buf_addf(out, "n^%d", c.deg);
	if (c.deg && c.log)
		buf_addc(out, ' ');
	if (c.log == 1)
		buf_adds(out, "log n");
	else if (c.log > 1)
		buf_addf(out, "log^%d n", c.log);
	buf_addc(out, ')');
}

static double atom_eval(const struct sym_ctx *x, int id, const double *v)
{
	const struct atom *a = &x->atoms[id];
	double s, r;

	switch (a->kind) {
	case AT_SYM:
		return v[a->sym];
	case AT_MAX0:
		s = (double)a->l.c;
		for (int i = 0; i < a->l.n; i++)
			s += (double)a->l.k[i] * v[a->l.var[i]];
		return s > 0 ? s : 0;
	case AT_LOG:
		s = sym_eval(x, a->p, v);
		if (s < 1)
			return 0;
		r = floor(log(s) / log((double)a->k) + 1e-9);
		return r;
	case AT_CEIL:
		return ceil(sym_eval(x, a->p, v) / (double)a->k);
	case AT_MAX:
		s = sym_eval(x, a->p, v);
		r = sym_eval(x, a->q, v);
		return s > r ? s : r;
	}
	return 0;
}

double sym_eval(const struct sym_ctx *x, const struct poly *a, const double *v)
{
	double s = 0;

	if (a->inf)
		return INFINITY;
	for (int i = 0; i < a->n; i++) {
		double m = (double)a->m[i].c;

		for (int k = 0; k < a->m[i].na; k++)
			m *= atom_eval(x, a->m[i].a[k], v);
		s += m;
	}
	return s;
}

int sym_better(const struct sym_ctx *x, const struct poly *a, const struct poly *b)
{
	int c = sym_class_cmp(sym_class_of(x, a), sym_class_of(x, b));
	double *v;
	double va, vb;

	if (c)
		return c;
	if (a->inf)
		return 0;
	v = xmalloc(((size_t)x->nnames + 1) * sizeof(*v));
	for (const double *at = (const double[]){1000, 37, 0}; *at; at++) {
		for (int i = 0; i < x->nnames; i++)
			v[i] = *at + i; /* distinct values, so n - m is not zero */
		va = sym_eval(x, a, v);
		vb = sym_eval(x, b, v);
		if (va != vb) {
			free(v);
			return va < vb ? -1 : 1;
		}
	}
	free(v);
	return a->n < b->n ? -1 : a->n > b->n;
}
