/*
 * Logarithmic bounds, for a loop whose counter is divided (while (n > 1)
 * n /= 2; binary search) or multiplied up to a limit (for (i = 1; i < n;
 * i *= 2)): per entry, at most 1 + log_k of the value it starts from.
 */
#include <stdlib.h>
#include <string.h>

#include "collect/bounds/absprog.h"
#include "collect/bounds/bound_priv.h"
#include "collect/bounds/exec.h"
#include "util/common.h"

/* The largest value form @v has on entering @loop's header. */
static const struct poly *entry_value(struct bctx *b, int loop, const struct lin *v)
{
	const struct absprog *a = b->a;
	const struct poly *r = NULL;

	for (int i = 0; i < a->nt; i++) {
		const struct trans *t = &a->t[i];
		struct val post;
		struct dc d;
		struct lin u;
		const struct poly *x;

		if (t->dst != a->loops[loop].cut || cut_within(b, t->src, loop))
			continue;
		post = exec_subst(v, t->post);
		if (!upper_lin(b, &post, &t->when, &u))
			return sym_inf(b->sx);
		memset(&d, 0, sizeof(d));
		d.kind = DC_RESET;
		d.c = u.c;
		d.a = lin_addc(&u, -u.c);
		x = reset_value(b, i, &d);
		r = r ? sym_max(b->sx, r, x) : x;
	}
	return r ? r : sym_const(b->sx, 0);
}

/* entries * (1 + log_k(max(1, start)) - e), never below zero. */
static const struct poly *per_entry(struct bctx *b, int loop, int64_t k, const struct poly *start,
				    int e)
{
	const struct poly *n = sym_addc(b->sx, sym_log(b->sx, k, start), 1 - e);

	if (e > 1)
		n = sym_max0(b->sx, n);
	return sym_mul(b->sx, entries(b, loop), n);
}

/* A norm divided by k on some transition of every iteration, and never
 * increased in the loop. */
static const struct poly *halved(struct bctx *b, int loop, int v, bool *mark)
{
	const struct absprog *a = b->a;
	int64_t k = 0, c = INT64_MIN, d, pw = 1;
	int e = 0;

	for (int i = 0; i < a->nt; i++) {
		const struct dc *dc = &b->dc[v][i];

		mark[i] = false;
		if (!cut_within(b, a->t[i].src, loop) || !cut_within(b, a->t[i].dst, loop))
			continue;
		if (dc->hk) {
			if (k && dc->hk != k)
				return NULL;
			k = dc->hk;
			if (dc->hc > c)
				c = dc->hc;
			mark[i] = true;
		} else if (dc->kind != DC_SAME && dc->kind != DC_DEC) {
			return NULL;
		}
	}
	if (!k || c > 0 || !cycles_marked(b, loop, mark))
		return NULL;
	/* v' <= (v + c) / k makes u = v + d shrink by k, d = -c / (k - 1);
	 * the loop goes on while u >= 1 + d. */
	d = -c / (k - 1);
	while (pw <= (1 + d) / k) {
		pw *= k;
		e++;
	}
	return per_entry(b, loop, k, sym_addc(b->sx, entry_value(b, loop, &b->norm[v]), d), e);
}

/* x multiplied by k >= 2 on every iteration while x <= Y, Y fixed, x >= 1. */
static const struct poly *multiplied(struct bctx *b, int loop, int x)
{
	const struct absprog *a = b->a;
	const struct facts *inv = &a->inv[a->loops[loop].cut];
	struct lin y = lin_const(0), xv = lin_var(x), d;
	int64_t k = 0, m = 1;
	int e = 0;
	bool have_y = false;

	for (int i = 0; i < a->nt; i++) {
		const struct trans *t = &a->t[i];
		const struct val *p = &t->post[x];

		if (!cut_within(b, t->src, loop) && !cut_within(b, t->dst, loop))
			continue;
		if (!cut_within(b, t->src, loop) || !cut_within(b, t->dst, loop))
			continue;
		if (t->src != a->loops[loop].cut || t->dst != t->src)
			return NULL; /* inner loops: not this simple shape */
		if (!val_is_lin(p) || p->l.n != 1 || p->l.var[0] != x || p->l.k[0] < 2 ||
		    p->l.c < 0)
			return NULL;
		k = k && k < p->l.k[0] ? k : p->l.k[0];
		if (!have_y) {
			for (int j = 0; j < t->when.n && !have_y; j++) {
				if (lin_coef(&t->when.v[j], x) != -1)
					continue;
				y = lin_add(&t->when.v[j], &xv);
				y = lin_addc(&y, -y.c + (t->when.v[j].c));
				have_y = !y.bad;
			}
		}
		d = lin_sub(&y, &xv);
		if (!have_y || !facts_prove(b->f, &t->when, &d))
			return NULL;
		for (int j = 0; j < y.n; j++) {
			const struct val *q = &t->post[y.var[j]];
			struct lin id = lin_var(y.var[j]);

			if (!val_is_lin(q) || !lin_eq(&q->l, &id))
				return NULL;
		}
	}
	if (!k || !facts_prove_ge(b->f, inv, &xv, 1))
		return NULL;
	while (m <= INT64_MAX / k && facts_prove_ge(b->f, inv, &xv, m * k)) {
		m *= k;
		e++;
	}
	return per_entry(b, loop, k, entry_value(b, loop, &y), e);
}

const struct poly *log_bound(struct bctx *b, int loop)
{
	const struct poly *best = sym_inf(b->sx), *c;
	bool *mark = xcalloc((size_t)b->a->nt + 1, sizeof(*mark));

	for (int v = 0; v < b->nnorm; v++)
		if ((c = halved(b, loop, v, mark)))
			best = better(b, best, c);
	for (int x = 0; x < b->f->nvars; x++)
		if ((c = multiplied(b, loop, x)))
			best = better(b, best, c);
	free(mark);
	return best;
}
