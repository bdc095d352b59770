/* The intermediate form: functions, values and expressions. */
#include <stdlib.h>
#include <string.h>

#include "collect/bounds/ir.h"
#include "util/common.h"

struct ir_func *ir_func_new(const char *name)
{
	struct ir_func *f = xcalloc(1, sizeof(*f));

	f->name = xstrdup(name);
	f->entry = ir_node_add(f, OP_NOP, 0);
	f->exit = ir_node_add(f, OP_EXIT, 0);
	return f;
}

void ir_func_free(struct ir_func *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->nvars; i++)
		free(f->vars[i].name);
	for (int i = 0; i < f->nnodes; i++)
		free(f->nodes[i].succ);
	free(f->vars);
	free(f->nodes);
	free(f->loops);
	free(f->name);
	free(f->opaque);
	free(f);
}

int ir_var_add(struct ir_func *f, const struct ir_var *v)
{
	XGROW(f->vars, (size_t)f->nvars + 1, f->vars_cap);
	f->vars[f->nvars] = *v;
	f->vars[f->nvars].name = xstrdup(v->name);
	return f->nvars++;
}

int ir_node_add(struct ir_func *f, enum ir_op op, int line)
{
	struct ir_node *n;

	XGROW(f->nodes, (size_t)f->nnodes + 1, f->nodes_cap);
	n = &f->nodes[f->nnodes];
	memset(n, 0, sizeof(*n));
	n->op = op;
	n->line = line;
	n->var = -1;
	n->loop = -1;
	n->e = expr_unknown();
	return f->nnodes++;
}

void ir_edge(struct ir_func *f, int from, int to)
{
	struct ir_node *n = &f->nodes[from];

	for (int i = 0; i < n->nsucc; i++)
		if (n->succ[i] == to)
			return;
	XGROW(n->succ, (size_t)n->nsucc + 1, n->succ_cap);
	n->succ[n->nsucc++] = to;
}

int ir_loop_add(struct ir_func *f, const struct ir_loop *l)
{
	XGROW(f->loops, (size_t)f->nloops + 1, f->loops_cap);
	f->loops[f->nloops] = *l;
	return f->nloops++;
}

void ir_set_opaque(struct ir_func *f, const char *why)
{
	if (!f->opaque)
		f->opaque = xstrdup(why);
}

/* ---- values ---- */

struct val val_unknown(void)
{
	struct val v;

	memset(&v, 0, sizeof(v));
	v.unknown = true;
	return v;
}

struct val val_lin(const struct lin *l)
{
	struct val v;

	if (l->bad)
		return val_unknown();
	memset(&v, 0, sizeof(v));
	v.l = *l;
	return v;
}

struct val val_const(int64_t c)
{
	struct lin l = lin_const(c);

	return val_lin(&l);
}

static bool add_div(struct val *r, const struct vdiv *d, int64_t m)
{
	int64_t mm;

	if (__builtin_mul_overflow(d->m, m, &mm))
		return false;
	for (int i = 0; i < r->ndiv; i++) {
		if (r->div[i].k == d->k && lin_eq(&r->div[i].e, &d->e)) {
			if (__builtin_add_overflow(r->div[i].m, mm, &r->div[i].m))
				return false;
			if (r->div[i].m == 0)
				r->div[i] = r->div[--r->ndiv];
			return true;
		}
	}
	if (r->ndiv == VAL_NDIV)
		return false;
	r->div[r->ndiv] = *d;
	r->div[r->ndiv++].m = mm;
	return true;
}

struct val val_addmul(const struct val *a, int64_t m, const struct val *b)
{
	struct val r;

	if (a->unknown || (m != 0 && b->unknown))
		return val_unknown();
	if (m == 0)
		return *a;
	r = *a;
	r.l = lin_addmul(&a->l, m, &b->l);
	if (r.l.bad)
		return val_unknown();
	for (int i = 0; i < b->ndiv; i++)
		if (!add_div(&r, &b->div[i], m))
			return val_unknown();
	if (m > 0) {
		r.higher |= b->higher;
		r.lower |= b->lower;
	} else {
		r.higher |= b->lower;
		r.lower |= b->higher;
	}
	return r;
}

struct val val_div(const struct val *a, int64_t k)
{
	struct val r;

	if (a->unknown || a->ndiv || k < 1)
		return val_unknown();
	if (k == 1)
		return *a;
	if (lin_is_const(&a->l)) {
		r = val_const(a->l.c / k);
	} else {
		r = val_const(0);
		r.ndiv = 1;
		r.div[0] = (struct vdiv){a->l, k, 1};
	}
	/* Division by a positive number keeps the order: the flags stay. */
	r.higher = a->higher;
	r.lower = a->lower;
	return r;
}

bool val_is_lin(const struct val *a)
{
	return !a->unknown && !a->ndiv && !a->higher && !a->lower;
}

bool val_eq(const struct val *a, const struct val *b)
{
	if (a->unknown || b->unknown)
		return false;
	if (!lin_eq(&a->l, &b->l) || a->ndiv != b->ndiv || a->higher != b->higher ||
	    a->lower != b->lower)
		return false;
	for (int i = 0; i < a->ndiv; i++)
		if (a->div[i].k != b->div[i].k || a->div[i].m != b->div[i].m ||
		    !lin_eq(&a->div[i].e, &b->div[i].e))
			return false;
	return true;
}

/* ---- expressions ---- */

struct ir_expr expr_val(const struct val *v)
{
	struct ir_expr e;

	memset(&e, 0, sizeof(e));
	e.v = *v;
	return e;
}

struct ir_expr expr_unknown(void)
{
	struct val v = val_unknown();

	return expr_val(&v);
}

struct ir_expr expr_addmul(const struct ir_expr *a, int64_t m, const struct ir_expr *b)
{
	struct ir_expr r = expr_val(&a->v);

	r.v = val_addmul(&a->v, m, &b->v);
	if (r.v.unknown)
		return expr_unknown();
	if (a->nob + (m ? b->nob : 0) > IR_NOB)
		return expr_unknown();
	memcpy(r.ob, a->ob, (size_t)a->nob * sizeof(*r.ob));
	r.nob = a->nob;
	for (int i = 0; m && i < b->nob; i++) {
		r.ob[r.nob] = b->ob[i];
		r.ob[r.nob++].sign *= m > 0 ? 1 : -1;
	}
	return r;
}

struct ir_expr expr_div(const struct ir_expr *a, int64_t k)
{
	struct ir_expr r = *a;

	r.v = val_div(&a->v, k);
	if (r.v.unknown)
		return expr_unknown();
	return r;
}

/* A constant converted as C converts it: reduced modulo the range's size. */
static bool wrap_const(int64_t c, int64_t lo, int64_t hi, int64_t *out)
{
	int64_t w, d;

	if (__builtin_sub_overflow(hi, lo, &w) || __builtin_add_overflow(w, 1, &w) || w <= 0 ||
	    __builtin_sub_overflow(c, lo, &d))
		return false;
	d %= w;
	if (d < 0)
		d += w;
	*out = lo + d;
	return true;
}

void expr_require(struct ir_expr *a, int64_t lo, int64_t hi, bool hard)
{
	int64_t c;

	if (a->v.unknown)
		return;
	if (val_is_lin(&a->v) && lin_is_const(&a->v.l)) {
		c = a->v.l.c;
		if (c >= lo && c <= hi)
			return;
		if (hard || !wrap_const(c, lo, hi, &c)) {
			*a = expr_unknown();
			return;
		}
		a->v = val_const(c);
		return;
	}
	for (int i = 0; i < a->nob; i++)
		if (a->ob[i].lo == lo && a->ob[i].hi == hi && a->ob[i].hard == hard &&
		    a->ob[i].sign == 1 && val_eq(&a->ob[i].e, &a->v))
			return;
	if (a->nob == IR_NOB) {
		*a = expr_unknown();
		return;
	}
	a->ob[a->nob++] = (struct oblig){a->v, lo, hi, 1, hard};
}
