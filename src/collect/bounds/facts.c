/* Fact sets and the prover. */
#include <stdlib.h>
#include <string.h>

#include "collect/bounds/facts.h"
#include "collect/bounds/ir.h"
#include "util/common.h"

/* The prover gives up past these sizes: an unproved fact is merely
 * unused, so giving up is always safe. */
#define FM_MAX_ROWS 160
#define FM_MAX_VARS 12

void facts_free(struct facts *f)
{
	free(f->v);
	memset(f, 0, sizeof(*f));
}

static void push(struct facts *f, const struct lin *e)
{
	XGROW(f->v, (size_t)f->n + 1, f->cap);
	f->v[f->n++] = *e;
}

void facts_copy(struct facts *to, const struct facts *from)
{
	to->n = 0;
	for (int i = 0; i < from->n; i++)
		push(to, &from->v[i]);
}

bool facts_add(struct facts *f, const struct lin *e)
{
	struct lin t;

	if (e->bad)
		return true;
	t = lin_tighten(e);
	if (t.n == 0)
		return t.c >= 0;
	for (int i = 0; i < f->n; i++) {
		struct lin *g = &f->v[i], neg;

		if (lin_same_vars(g, &t)) {
			if (t.c < g->c)
				g->c = t.c; /* the stronger of the two */
			return true;
		}
		neg = lin_scale(&t, -1);
		if (lin_same_vars(g, &neg) && !neg.bad && g->c + t.c < 0)
			return false; /* x >= a and x <= b with b < a */
	}
	push(f, &t);
	return true;
}

void facts_add_all(struct facts *to, const struct facts *from)
{
	for (int i = 0; i < from->n; i++)
		facts_add(to, &from->v[i]);
}

void facts_join(struct facts *a, const struct facts *b)
{
	int o = 0;

	for (int i = 0; i < a->n; i++) {
		const struct lin *match = NULL;

		for (int j = 0; j < b->n && !match; j++)
			if (lin_same_vars(&a->v[i], &b->v[j]))
				match = &b->v[j];
		if (!match)
			continue;
		a->v[o] = a->v[i];
		if (match->c > a->v[o].c)
			a->v[o].c = match->c;
		o++;
	}
	a->n = o;
}

bool facts_equal(const struct facts *a, const struct facts *b)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++) {
		bool found = false;

		for (int j = 0; j < b->n && !found; j++)
			found = lin_eq(&a->v[i], &b->v[j]);
		if (!found)
			return false;
	}
	return true;
}

/* ---- Fourier-Motzkin ---- */

struct sys {
	struct lin r[FM_MAX_ROWS];
	int n;
	bool full;
};

static void sys_add(struct sys *s, const struct lin *e)
{
	struct lin t = lin_tighten(e);

	if (t.bad)
		return;
	for (int i = 0; i < s->n; i++) {
		if (lin_same_vars(&s->r[i], &t)) {
			if (t.c < s->r[i].c)
				s->r[i].c = t.c;
			return;
		}
	}
	if (s->n == FM_MAX_ROWS) {
		s->full = true;
		return;
	}
	s->r[s->n++] = t;
}

static bool has_var(const struct lin *e, int var)
{
	return lin_coef(e, var) != 0;
}

/* True when the system has no rational solution. */
static bool infeasible(struct sys *s, const int *vars, int nvars)
{
	for (int i = 0; i < s->n; i++)
		if (s->r[i].n == 0 && s->r[i].c < 0)
			return true;
	for (int v = 0; v < nvars; v++) {
		struct sys *next = xmalloc(sizeof(*next));

		next->n = 0;
		next->full = false;
		for (int i = 0; i < s->n; i++)
			if (!has_var(&s->r[i], vars[v]))
				sys_add(next, &s->r[i]);
		for (int i = 0; i < s->n && !next->full; i++) {
			int64_t a = lin_coef(&s->r[i], vars[v]);

			if (a <= 0)
				continue;
			for (int j = 0; j < s->n && !next->full; j++) {
				int64_t b = lin_coef(&s->r[j], vars[v]);
				struct lin pa, sum;

				if (b >= 0)
					continue;
				pa = lin_scale(&s->r[i], -b);
				sum = lin_addmul(&pa, a, &s->r[j]);
				if (!sum.bad)
					sys_add(next, &sum);
			}
		}
		if (next->full) {
			free(next);
			return false;
		}
		for (int i = 0; i < next->n; i++) {
			if (next->r[i].n == 0 && next->r[i].c < 0) {
				free(next);
				return true;
			}
		}
		*s = *next;
		free(next);
	}
	return false;
}

static void add_var(int *vars, int *n, int v, bool *over)
{
	for (int i = 0; i < *n; i++)
		if (vars[i] == v)
			return;
	if (*n == FM_MAX_VARS) {
		*over = true;
		return;
	}
	vars[(*n)++] = v;
}

/* The type's range as facts, for the variables of the system. */
static void add_type_facts(const struct ir_func *fn, struct sys *s, const int *vars, int n)
{
	for (int i = 0; i < n; i++) {
		const struct ir_var *v = &fn->vars[vars[i]];
		struct lin x = lin_var(vars[i]), t;

		if (v->lo > INT64_MIN) {
			t = lin_addc(&x, -v->lo);
			sys_add(s, &t);
		}
		if (v->hi < INT64_MAX) {
			t = lin_scale(&x, -1);
			t = lin_addc(&t, v->hi);
			sys_add(s, &t);
		}
	}
}

bool facts_prove(const struct ir_func *fn, const struct facts *f, const struct lin *e)
{
	struct sys *s;
	int vars[FM_MAX_VARS], nvars = 0;
	bool over = false, *used, grew = true, res;
	struct lin neg;

	if (e->bad)
		return false;
	if (e->n == 0)
		return e->c >= 0;
	/* The facts that share a variable with e, and with those, and so on. */
	for (int i = 0; i < e->n; i++)
		add_var(vars, &nvars, e->var[i], &over);
	used = xcalloc((size_t)f->n + 1, sizeof(*used));
	while (grew && !over) {
		grew = false;
		for (int i = 0; i < f->n; i++) {
			bool shares = false;

			if (used[i])
				continue;
			for (int k = 0; k < f->v[i].n && !shares; k++)
				for (int j = 0; j < nvars && !shares; j++)
					shares = f->v[i].var[k] == vars[j];
			if (!shares)
				continue;
			used[i] = grew = true;
			for (int k = 0; k < f->v[i].n; k++)
				add_var(vars, &nvars, f->v[i].var[k], &over);
		}
	}
	if (over) {
		free(used);
		return false;
	}
	s = xmalloc(sizeof(*s));
	s->n = 0;
	s->full = false;
	for (int i = 0; i < f->n; i++)
		if (used[i])
			sys_add(s, &f->v[i]);
	free(used);
	if (fn)
		add_type_facts(fn, s, vars, nvars);
	/* e >= 0 holds when e <= -1 has no solution. */
	neg = lin_scale(e, -1);
	neg = lin_addc(&neg, -1);
	sys_add(s, &neg);
	res = !s->full && !neg.bad && infeasible(s, vars, nvars);
	free(s);
	return res;
}

bool facts_prove_ge(const struct ir_func *fn, const struct facts *f, const struct lin *e, int64_t k)
{
	struct lin d = lin_addc(e, k == INT64_MIN ? 0 : -k);

	if (k == INT64_MIN)
		return true;
	return facts_prove(fn, f, &d);
}
