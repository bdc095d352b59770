/*
 * Resets whose values step through a range: the inner loop of a triangle
 * (for (j = 0; j < i; j++) under i = 0 .. n - 1) is reset n times, each
 * time to a value below n, but each time to another one: i only grows,
 * by one at least between two resets. Distinct values up to U sum to at
 * most U (U + 1) / 2, not n U: the exact count of the triangle, where
 * multiplying gives twice as much.
 */
#include <stdlib.h>

#include "collect/bounds/bound_priv.h"
#include "util/common.h"

/* From each transition of @g, every way back to one of them passes a
 * transition of @mark (or starts with one). */
static bool separated(const struct bctx *b, const int *g, int n, const bool *mark)
{
	const struct absprog *a = b->a;
	bool *srcs = xcalloc((size_t)a->ncut, sizeof(*srcs)), ok = true;

	for (int k = 0; k < n; k++)
		srcs[a->t[g[k]].src] = true;
	for (int k = 0; k < n && ok; k++)
		if (!mark[g[k]])
			ok = !srcs[a->t[g[k]].dst] && !reaches(b, a->t[g[k]].dst, srcs, mark);
	free(srcs);
	return ok;
}

const struct poly *series(struct bctx *b, int norm, const int *g, int n)
{
	const struct absprog *a = b->a;
	const struct dc *d0 = &b->dc[norm][g[0]];
	const struct poly *top = NULL, *tri;
	bool down = true, up = true, *mark;
	int j;

	for (int k = 0; k < n; k++) {
		const struct dc *d = &b->dc[norm][g[k]];

		if (d->kind != DC_RESET || !lin_eq(&d->a, &d0->a) || d->c != d0->c)
			return NULL;
	}
	j = norm_index(b, &d0->a);
	if (j < 0)
		return NULL;
	/* How the value read (a) moves, where it can move more than once. */
	for (int i = 0; i < a->nt; i++) {
		const struct dc *e = &b->dc[j][i];

		if (!b->cyclic[a->t[i].src])
			continue;
		if (!e->has_delta)
			return NULL;
		down &= e->delta <= 0;
		up &= e->exact && e->delta >= 0;
	}
	if (!down && !up)
		return NULL;
	mark = xcalloc((size_t)a->nt + 1, sizeof(*mark));
	for (int i = 0; i < a->nt; i++) {
		const struct dc *e = &b->dc[j][i];

		mark[i] = e->has_delta && (down ? e->delta <= -1 : e->exact && e->delta >= 1);
	}
	if (!separated(b, g, n, mark)) {
		free(mark);
		return NULL;
	}
	free(mark);
	for (int k = 0; k < n; k++) {
		const struct poly *x = reset_value(b, g[k], &b->dc[norm][g[k]]);

		top = top ? sym_max(b->sx, top, x) : x;
	}
	/* Distinct values up to top: max(0, top) (top + 1) / 2 at most. */
	tri = sym_mul(b->sx, sym_max0(b->sx, top), sym_max0(b->sx, sym_addc(b->sx, top, 1)));
	return sym_ceildiv(b->sx, tri, 2);
}
