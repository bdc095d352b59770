/* Symbolic execution of single nodes (exec.h). */
#include <stdlib.h>
#include <string.h>

#include "collect/bounds/exec.h"
#include "util/common.h"

void sstate_init(struct sstate *s, const struct ir_func *f, bool at_entry,
		 const struct facts *facts)
{
	memset(s, 0, sizeof(*s));
	s->sigma = xcalloc((size_t)f->nvars + 1, sizeof(*s->sigma));
	for (int i = 0; i < f->nvars; i++) {
		const struct ir_var *v = &f->vars[i];

		if (!at_entry || v->is_param || v->is_global) {
			struct lin l = lin_var(i);

			s->sigma[i] = val_lin(&l);
		} else {
			s->sigma[i] = val_unknown();
		}
	}
	if (facts)
		facts_copy(&s->facts, facts);
}

void sstate_copy(struct sstate *to, const struct sstate *from, int nvars)
{
	memset(to, 0, sizeof(*to));
	to->sigma = xmalloc(((size_t)nvars + 1) * sizeof(*to->sigma));
	memcpy(to->sigma, from->sigma, (size_t)nvars * sizeof(*to->sigma));
	facts_copy(&to->facts, &from->facts);
	facts_copy(&to->guard, &from->guard);
	to->dead = from->dead;
	to->line = from->line;
}

void sstate_free(struct sstate *s)
{
	free(s->sigma);
	facts_free(&s->facts);
	facts_free(&s->guard);
	memset(s, 0, sizeof(*s));
}

void sstate_join(struct sstate *a, const struct sstate *b, int nvars)
{
	for (int i = 0; i < nvars; i++)
		if (!val_eq(&a->sigma[i], &b->sigma[i]))
			a->sigma[i] = val_unknown();
	facts_join(&a->facts, &b->facts);
	facts_join(&a->guard, &b->guard);
	if (!a->line || (b->line && b->line < a->line))
		a->line = b->line;
}

struct val exec_subst(const struct lin *l, const struct val *sigma)
{
	struct val r = val_const(l->c);

	if (l->bad)
		return val_unknown();
	for (int i = 0; i < l->n && !r.unknown; i++)
		r = val_addmul(&r, l->k[i], &sigma[l->var[i]]);
	return r;
}

static struct val subst_val(const struct val *v, const struct val *sigma)
{
	struct val r;

	if (v->unknown)
		return val_unknown();
	r = exec_subst(&v->l, sigma);
	for (int i = 0; i < v->ndiv && !r.unknown; i++) {
		struct val e = exec_subst(&v->div[i].e, sigma), q = val_div(&e, v->div[i].k);

		r = val_addmul(&r, v->div[i].m, &q);
	}
	if (!r.unknown) {
		r.higher |= v->higher;
		r.lower |= v->lower;
	}
	return r;
}

/*
 * A linear form below (@upper false) or above (@upper true) @v, the
 * divisions bounded by 0 <= trunc(e / k) <= e for e >= 0.
 */
static bool lin_around(const struct ir_func *f, const struct sstate *s, const struct val *v,
		       bool upper, struct lin *out)
{
	struct lin r = v->l;

	for (int i = 0; i < v->ndiv; i++) {
		const struct vdiv *d = &v->div[i];

		if (!facts_prove(f, &s->facts, &d->e))
			return false;
		if ((d->m > 0) == upper)
			r = lin_addmul(&r, d->m, &d->e);
	}
	*out = r;
	return !r.bad;
}

/* The real value of @v is at least @lo: its form is, and it cannot lie below it. */
static bool proved_ge(const struct ir_func *f, const struct sstate *s, const struct val *v,
		      int64_t lo)
{
	struct lin l;

	return !v->lower && lin_around(f, s, v, false, &l) && facts_prove_ge(f, &s->facts, &l, lo);
}

static bool proved_le(const struct ir_func *f, const struct sstate *s, const struct val *v,
		      int64_t hi)
{
	struct lin d;

	if (v->higher || !lin_around(f, s, v, true, &d))
		return false;
	d = lin_scale(&d, -1);
	d = lin_addc(&d, hi);
	return !d.bad && facts_prove(f, &s->facts, &d);
}

struct val exec_eval(const struct ir_func *f, const struct ir_expr *e, const struct sstate *s)
{
	struct val r = subst_val(&e->v, s->sigma);

	for (int i = 0; i < e->nob && !r.unknown; i++) {
		const struct oblig *o = &e->ob[i];
		struct val sv = subst_val(&o->e, s->sigma);
		bool below, above;

		if (sv.unknown)
			return val_unknown();
		below = o->lo > INT64_MIN && !proved_ge(f, s, &sv, o->lo);
		above = o->hi < INT64_MAX && !proved_le(f, s, &sv, o->hi);
		if (o->hard && (below || above))
			return val_unknown();
		/* Below the range it wraps up, above it wraps down; the whole
		 * value moves by the subexpression's sign in it. */
		if (below) {
			r.higher |= o->sign > 0;
			r.lower |= o->sign < 0;
		}
		if (above) {
			r.lower |= o->sign > 0;
			r.higher |= o->sign < 0;
		}
	}
	return r;
}

/* v >= 0 as a fact, when the real value's being >= 0 implies its form's. */
static void assume_ge0(struct sstate *s, const struct val *v)
{
	if (v->unknown || v->ndiv || v->higher)
		return;
	if (!facts_add(&s->facts, &v->l))
		s->dead = true;
	facts_add(&s->guard, &v->l);
}

void exec_node(const struct ir_func *f, const struct ir_node *n, struct sstate *s)
{
	struct val v, zero = val_const(0);

	if (n->line && !s->line)
		s->line = n->line;
	switch (n->op) {
	case OP_ASSUME:
		v = exec_eval(f, &n->e, s);
		assume_ge0(s, &v);
		if (n->eq) {
			v = val_addmul(&zero, -1, &v);
			assume_ge0(s, &v);
		}
		break;
	case OP_ASSIGN:
		s->sigma[n->var] = exec_eval(f, &n->e, s);
		break;
	case OP_HAVOC:
		s->sigma[n->var] = val_unknown();
		break;
	case OP_CLOBBER:
		for (int i = 0; i < f->nvars; i++)
			if (f->vars[i].is_global)
				s->sigma[i] = val_unknown();
		break;
	default:
		break;
	}
}
