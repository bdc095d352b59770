/* A loop's back edges and entries, and the analysis of one function. */
#include <stdlib.h>
#include <string.h>

#include "collect/bounds/absprog.h"
#include "collect/bounds/bound.h"
#include "collect/bounds/bound_priv.h"
#include "util/buf.h"
#include "util/common.h"

/* The transitions into @loop's header: from inside (@inside) or not. */
static int into_header(const struct bctx *b, int loop, bool inside, int *s)
{
	const struct absprog *a = b->a;
	int n = 0;

	for (int i = 0; i < a->nt; i++)
		if (a->t[i].dst == a->loops[loop].cut && cut_within(b, a->t[i].src, loop) == inside)
			s[n++] = i;
	return n;
}

/* Norm @v decreases somewhere in @loop. */
static bool decreases_in(const struct bctx *b, int v, int loop)
{
	for (int i = 0; i < b->a->nt; i++)
		if (b->dc[v][i].kind == DC_DEC && cut_within(b, b->a->t[i].src, loop))
			return true;
	return false;
}

const struct poly *back_edges(struct bctx *b, int loop)
{
	const struct absprog *a = b->a;
	const struct poly *best, *old;
	int *s, n, hits = b->hits;
	bool *mark;

	if (b->bl_st[loop] == M_DONE || b->bl_st[loop] == M_TAINTED)
		return b->bl[loop];
	if (b->bl_st[loop] == M_RUNNING || over_budget(b)) {
		b->hits++;
		return sym_inf(b->sx);
	}
	if (!a->loops[loop].reachable)
		return sym_const(b->sx, 0);
	old = b->bl_st[loop] == M_STALE ? b->bl[loop] : NULL;
	b->bl_st[loop] = M_RUNNING;
	s = xmalloc(((size_t)a->nt + 1) * sizeof(*s));
	n = into_header(b, loop, true, s);
	best = bound_set(b, s, n);
	/* Every iteration decreases v: the back edges run at most Bound(v). */
	mark = xcalloc((size_t)a->nt + 1, sizeof(*mark));
	for (int v = 0; n && v < b->nnorm; v++) {
		for (int i = 0; i < a->nt; i++)
			mark[i] = b->dc[v][i].kind == DC_DEC;
		if (cycles_marked(b, loop, mark))
			best = better(b, best, norm_bound(b, v));
	}
	/* Failing one norm, two whose decreases together cover every
	 * iteration (while (i < n || j < m) { i++; j++; }): the sum. */
	for (int v = 0; n && sym_is_inf(best) && v < b->nnorm; v++) {
		if (!decreases_in(b, v, loop))
			continue;
		for (int w = v + 1; w < b->nnorm; w++) {
			if (!decreases_in(b, w, loop))
				continue;
			for (int i = 0; i < a->nt; i++)
				mark[i] = b->dc[v][i].kind == DC_DEC || b->dc[w][i].kind == DC_DEC;
			if (cycles_marked(b, loop, mark))
				best = better(b, best,
					      sym_add(b->sx, norm_bound(b, v), norm_bound(b, w)));
		}
	}
	if (n)
		best = better(b, best, log_bound(b, loop));
	free(mark);
	free(s);
	return memo_keep(b, &b->bl_st[loop], &b->bl[loop], best, hits, old);
}

const struct poly *entries(struct bctx *b, int loop)
{
	const struct absprog *a = b->a;
	const struct poly *r, *old;
	int *s, n, hits = b->hits;

	if (!a->loops[loop].reachable)
		return sym_const(b->sx, 0);
	/* A loop in no other is entered once: entering it again would take
	 * a cycle around it, that is, another loop. */
	if (a->loops[loop].parent < 0)
		return sym_const(b->sx, 1);
	if (b->el_st[loop] == M_DONE || b->el_st[loop] == M_TAINTED)
		return b->el[loop];
	if (b->el_st[loop] == M_RUNNING || over_budget(b)) {
		b->hits++;
		return sym_inf(b->sx);
	}
	old = b->el_st[loop] == M_STALE ? b->el[loop] : NULL;
	b->el_st[loop] = M_RUNNING;
	s = xmalloc(((size_t)a->nt + 1) * sizeof(*s));
	n = into_header(b, loop, false, s);
	r = bound_set(b, s, n);
	free(s);
	return memo_keep(b, &b->el_st[loop], &b->el[loop], r, hits, old);
}

/* ---- reasons ---- */

/* "n - i changes at line 7 in a way we cannot follow" */
static char *lost(const struct bctx *b, int norm, int line)
{
	struct buf t = BUF_INIT;

	lin_text(b->f, &b->norm[norm], &t);
	buf_addf(&t, " changes at line %d in a way we cannot follow", line);
	return buf_detach(&t, NULL);
}

/* Why @loop has no bound, in a few words for the profile and the view. */
static char *loop_reason(struct bctx *b, int loop)
{
	const struct absprog *a = b->a;
	bool any_norm = false;
	char *unknown = NULL;

	if (a->unsupported)
		return xstrdup(a->unsupported);
	for (int i = 0; i < a->nt; i++) {
		const struct trans *t = &a->t[i];

		if (!cut_within(b, t->src, loop) || !cut_within(b, t->dst, loop))
			continue;
		for (int k = 0; k < t->guard.n; k++) {
			struct lin v = lin_addc(&t->guard.v[k], 1);

			for (int j = 0; j < b->nnorm; j++) {
				if (!lin_eq(&b->norm[j], &v))
					continue;
				any_norm = true;
				if (b->why[j]) {
					free(unknown);
					return xstrdup(b->why[j]);
				}
				if (!unknown) {
					for (int u = 0; u < a->nt && !unknown; u++)
						if (b->dc[j][u].kind == DC_UNKNOWN &&
						    cut_within(b, a->t[u].src, loop))
							unknown = lost(b, j, a->t[u].line);
				}
			}
		}
	}
	if (unknown)
		return unknown;
	if (!any_norm)
		return xstrdup("its condition is no comparison of integers we can follow "
			       "(memory, a call, floating point, an operator in a macro, or none)");
	return xstrdup("no counter in its condition moves toward the exit on every iteration");
}

/* ---- one function ---- */

static int loop_cmp(const void *x, const void *y)
{
	const struct loop_bound *p = x, *q = y;

	if (p->src.line != q->src.line)
		return p->src.line < q->src.line ? -1 : 1;
	return p->src.col < q->src.col ? -1 : p->src.col > q->src.col;
}

static void bctx_release(struct bctx *b)
{
	for (int i = 0; i < b->nnorm; i++) {
		free(b->dc[i]);
		free(b->why[i]);
	}
	free(b->bl);
	free(b->el);
	free(b->bl_st);
	free(b->el_st);
	free(b->cyclic);
	free(b->within);
	free(b->seen);
	free(b->stack);
	free(b->skip);
	free(b->target);
}

static void analyse(struct bctx *b, struct func_bounds *out)
{
	const struct absprog *a = b->a;

	out->total = sym_const(b->sx, 0);
	out->loops = xcalloc((size_t)a->nloops + 1, sizeof(*out->loops));
	/* A first pass fills the memos; what it computed while a quantity it
	 * needed was still running is computed again, with the rest known. */
	for (int i = a->nloops - 1; !a->unsupported && i >= 0; i--)
		if (a->loops[i].reachable)
			back_edges(b, i); /* inner loops (later in the source) first */
	memo_untaint(b);
	for (int i = 0; i < a->nloops; i++) {
		struct loop_bound *lb = &out->loops[out->nloops++];

		lb->src = a->loops[i].src;
		lb->nested = a->loops[i].parent >= 0;
		if (a->unsupported) {
			lb->bound = sym_inf(b->sx);
		} else if (!a->loops[i].reachable) {
			lb->bound = sym_const(b->sx, 0);
		} else {
			lb->bound = back_edges(b, i);
			if (!lb->nested)
				lb->bound = sym_addc(b->sx, lb->bound, 1);
		}
		if (sym_is_inf(lb->bound)) {
			lb->reason = loop_reason(b, i);
			if (!out->total_reason)
				out->total_reason =
					xasprintf("the loop at line %d has no bound: %s",
						  lb->src.line, lb->reason);
		}
		out->total = sym_add(b->sx, out->total, lb->bound);
	}
	/* A function we cannot follow may loop where no loop was seen (a
	 * computed goto): its total is unbounded, loops or not. */
	if (a->unsupported && !sym_is_inf(out->total)) {
		out->total = sym_inf(b->sx);
		out->total_reason = xstrdup(a->unsupported);
	}
	qsort(out->loops, (size_t)out->nloops, sizeof(*out->loops), loop_cmp);
}

int bound_function(const struct ir_func *f, struct func_bounds *out)
{
	struct absprog *a;
	struct bctx b;
	const char **names = xcalloc((size_t)f->nvars + 1, sizeof(*names));
	int ret;

	memset(out, 0, sizeof(*out));
	out->name = xstrdup(f->name);
	out->line = f->line;
	out->col = f->col;
	for (int i = 0; i < f->nvars; i++)
		names[i] = f->vars[i].name;
	out->sx = sym_ctx_new(names, f->nvars);
	free(names);
	ret = absprog_build(f, &a);
	if (ret < 0)
		return ret;
	memset(&b, 0, sizeof(b));
	b.a = a;
	b.f = f;
	b.sx = out->sx;
	b.bl = xcalloc((size_t)a->nloops + 1, sizeof(*b.bl));
	b.el = xcalloc((size_t)a->nloops + 1, sizeof(*b.el));
	b.bl_st = xcalloc((size_t)a->nloops + 1, 1);
	b.el_st = xcalloc((size_t)a->nloops + 1, 1);
	if (!a->unsupported) {
		graph_setup(&b);
		collect_norms(&b);
	}
	analyse(&b, out);
	bctx_release(&b);
	absprog_free(a);
	return 0;
}

void func_bounds_release(struct func_bounds *fb)
{
	for (int i = 0; i < fb->nloops; i++)
		free(fb->loops[i].reason);
	free(fb->loops);
	free(fb->name);
	free(fb->total_reason);
	sym_ctx_free(fb->sx);
	memset(fb, 0, sizeof(*fb));
}
