/*
 * The bound algorithm (bound.h). Vocabulary, after Sinn et al.:
 *
 * - A norm is a linear form over the program's variables, taken from a
 *   loop's conditions: `i < n` gives n - i, which must be >= 1 for the
 *   loop to go on. Its potential max(0, v) drops by at least one on each
 *   transition that decreases it while guarded by v >= 1.
 * - Against each transition a norm has a difference constraint: it stays
 *   or decreases (v' <= v - d), grows by a constant (v' <= v + c), is reset
 *   to another form (v' <= a + c), or becomes unknown.
 * - Bound(v), the number of guarded decreases of v in one call, is at most
 *   what resets put into it plus what increments add: the sum over resets
 *   of TB(reset) * max(0, VB(a) + c), plus TB(increment) * c, where TB is
 *   how often a transition runs and VB bounds a form's value.
 * - A loop's back edges run at most Bound(v) times when every iteration
 *   decreases v; a set of transitions runs at most Bound(v) times when
 *   each is guarded by v >= 1 and a decrease lies between any two of them.
 *   That budget is shared: counters fed by an outer loop's work are paid
 *   once (amortised), not multiplied.
 *
 * Anything that cannot be shown is infinite, and infinity absorbs.
 */
#include <stdlib.h>
#include <string.h>

#include "collect/bounds/absprog.h"
#include "collect/bounds/bound.h"
#include "collect/bounds/bound_priv.h"
#include "collect/bounds/exec.h"
#include "util/buf.h"
#include "util/common.h"

/* ---- the abstract graph ---- */

int cut_loop(const struct bctx *b, int cut)
{
	return absprog_cut_loop(b->a, cut);
}

bool cut_within(const struct bctx *b, int cut, int loop)
{
	return b->within[cut * b->a->nloops + loop];
}

/* Whether a cut in @targets is reachable from cut @from by transitions
 * not in @skip (NULL: none skipped), in one step at least. */
bool reaches(const struct bctx *b, int from, const bool *targets, const bool *skip)
{
	const struct absprog *a = b->a;
	bool found = false;
	int sp = 0;

	memset(b->seen, 0, (size_t)a->ncut * sizeof(*b->seen));
	b->stack[sp++] = from;
	while (sp && !found) {
		int c = b->stack[--sp];

		for (int i = 0; i < a->nt && !found; i++) {
			if (a->t[i].src != c || (skip && skip[i]))
				continue;
			if (targets[a->t[i].dst])
				found = true;
			else if (!b->seen[a->t[i].dst]) {
				b->seen[a->t[i].dst] = true;
				b->stack[sp++] = a->t[i].dst;
			}
		}
	}
	return found;
}

void graph_setup(struct bctx *b)
{
	const struct absprog *a = b->a;
	bool *me;

	b->seen = xcalloc((size_t)a->ncut + 1, sizeof(*b->seen));
	b->stack = xcalloc((size_t)a->ncut + 1, sizeof(*b->stack));
	b->skip = xcalloc((size_t)a->nt + 1, sizeof(*b->skip));
	b->target = xcalloc((size_t)a->ncut + 1, sizeof(*b->target));
	b->within = xcalloc((size_t)a->ncut * (size_t)(a->nloops + 1), sizeof(*b->within));
	for (int c = 0; c < a->ncut; c++) {
		int l = absprog_cut_loop(a, c);

		for (int k = 0; l >= 0 && k < a->nloops; k++)
			b->within[c * a->nloops + k] = absprog_loop_within(a, l, k);
	}
	me = xcalloc((size_t)a->ncut, sizeof(*me));
	b->cyclic = xcalloc((size_t)a->ncut, sizeof(*b->cyclic));
	for (int c = 0; c < a->ncut; c++) {
		me[c] = true;
		b->cyclic[c] = reaches(b, c, me, NULL);
		me[c] = false;
	}
	free(me);
}

/* ---- norms and their difference constraints ---- */

/* The least linear form above @v, or false: each division's numerator
 * must be known not to be negative (then trunc(e / k) <= e - 1 when
 * e >= 1, and -trunc(e / k) <= 0). */
bool upper_lin(const struct bctx *b, const struct val *v, const struct facts *when, struct lin *out)
{
	struct lin u;

	if (v->unknown || v->higher)
		return false;
	u = v->l;
	for (int i = 0; i < v->ndiv; i++) {
		const struct vdiv *d = &v->div[i];

		if (!facts_prove(b->f, when, &d->e))
			return false;
		if (d->m > 0) {
			struct lin e = d->e;

			if (facts_prove_ge(b->f, when, &d->e, 1))
				e = lin_addc(&e, -1);
			u = lin_addmul(&u, d->m, &e);
		}
	}
	*out = u;
	return !u.bad;
}

/* v' <= (v + c) / k: k * v' bounded with k * trunc(e / k) <= e and
 * k * trunc(e / k) >= e - k + 1, for numerators known not negative. */
static bool halving(const struct bctx *b, const struct lin *v, const struct val *post,
		    const struct facts *when, int64_t *k, int64_t *c)
{
	struct lin w, d;
	int64_t kk = 0;

	if (post->unknown || post->higher || post->ndiv == 0)
		return false;
	for (int i = 0; i < post->ndiv; i++) {
		if (kk && post->div[i].k != kk)
			return false;
		kk = post->div[i].k;
	}
	w = lin_scale(&post->l, kk);
	for (int i = 0; i < post->ndiv; i++) {
		const struct vdiv *dv = &post->div[i];
		struct lin e = dv->e;

		if (!facts_prove(b->f, when, &dv->e))
			return false;
		if (dv->m < 0)
			e = lin_addc(&e, -(kk - 1));
		w = lin_addmul(&w, dv->m, &e);
	}
	d = lin_sub(&w, v);
	if (d.bad || d.n || d.c > 0)
		return false;
	*k = kk;
	*c = d.c;
	return true;
}

static bool shares_var(const struct lin *a, const struct lin *b)
{
	for (int i = 0; i < a->n; i++)
		if (lin_coef(b, a->var[i]))
			return true;
	return false;
}

static struct dc make_dc(const struct bctx *b, const struct lin *v, const struct trans *t)
{
	struct val post = exec_subst(v, t->post);
	struct dc r;
	struct lin u, d;

	memset(&r, 0, sizeof(r));
	r.guarded = facts_prove_ge(b->f, &t->when, v, 1);
	if (!upper_lin(b, &post, &t->when, &u)) {
		r.kind = DC_UNKNOWN;
		return r;
	}
	if (r.guarded && halving(b, v, &post, &t->when, &r.hk, &r.hc) == false)
		r.hk = 0;
	d = lin_sub(&u, v);
	/* From the entry a norm starts afresh: its first value is a reset. */
	if (t->src != 0 && !d.bad && d.n == 0) {
		r.has_delta = true;
		r.delta = d.c;
		r.exact = val_is_lin(&post) && lin_eq(&post.l, &u);
		r.kind = d.c < 0 ? (r.guarded ? DC_DEC : DC_SAME) : d.c > 0 ? DC_INC : DC_SAME;
		r.c = d.c < 0 ? -d.c : d.c;
		return r;
	}
	r.c = u.c;
	r.a = lin_addc(&u, -u.c);
	r.kind = DC_RESET;
	/* v' <= v + w with w a form of other values (s += i): an increment
	 * by w. Otherwise the old value is overwritten: a reset. */
	if (t->src != 0 && !d.bad && !shares_var(&d, v)) {
		struct lin neg = lin_scale(&d, -1);

		r.kind = facts_prove(b->f, &t->when, &neg) ? DC_SAME : DC_INC;
		r.c = d.c;
		r.a = lin_addc(&d, -d.c);
	}
	return r;
}

int norm_index(struct bctx *b, const struct lin *v)
{
	if (v->bad || v->n == 0)
		return -1;
	for (int i = 0; i < b->nnorm; i++)
		if (lin_eq(&b->norm[i], v))
			return i;
	if (b->nnorm == MAX_NORMS)
		return -1;
	b->norm[b->nnorm] = *v;
	b->dc[b->nnorm] = xcalloc((size_t)b->a->nt + 1, sizeof(struct dc));
	for (int t = 0; t < b->a->nt; t++)
		b->dc[b->nnorm][t] = make_dc(b, v, &b->a->t[t]);
	return b->nnorm++;
}

/* Norms from what each iteration of each loop assumes: e >= 0 gives e + 1. */
void collect_norms(struct bctx *b)
{
	const struct absprog *a = b->a;

	for (int i = 0; i < a->nt; i++) {
		const struct trans *t = &a->t[i];
		int l = cut_loop(b, t->src);

		if (l < 0 || !cut_within(b, t->dst, l))
			continue;
		for (int k = 0; k < t->when.n; k++) {
			struct lin v = lin_addc(&t->when.v[k], 1);

			norm_index(b, &v);
		}
	}
}

void lin_text(const struct ir_func *f, const struct lin *l, struct buf *out)
{
	for (int i = 0; i < l->n; i++) {
		int64_t k = l->k[i];
		const char *name = f->vars[l->var[i]].name;

		if (i == 0)
			buf_adds(out, k < 0 ? "-" : "");
		else
			buf_adds(out, k < 0 ? " - " : " + ");
		if (k != 1 && k != -1)
			buf_addf(out, "%lld*", (long long)(k < 0 ? -k : k));
		buf_adds(out, name);
	}
	if (l->c)
		buf_addf(out, "%s%lld", l->c < 0 ? " - " : " + ",
			 (long long)(l->c < 0 ? -l->c : l->c));
}

void set_why(struct bctx *b, int norm, const char *what)
{
	struct buf t = BUF_INIT;

	if (b->why[norm])
		return;
	lin_text(b->f, &b->norm[norm], &t);
	buf_addf(&t, " %s", what);
	b->why[norm] = buf_detach(&t, NULL);
}

/* ---- bounds of transitions ---- */

const struct poly *better(struct bctx *b, const struct poly *x, const struct poly *y)
{
	return sym_better(b->sx, x, y) <= 0 ? x : y;
}

bool over_budget(struct bctx *b)
{
	return ++b->steps > STEP_BUDGET;
}

const struct poly *memo_keep(struct bctx *b, char *st, const struct poly **slot,
			     const struct poly *r, int hits, const struct poly *old)
{
	if (old)
		r = better(b, old, r);
	*st = b->hits == hits ? M_DONE : M_TAINTED;
	*slot = r;
	return r;
}

void memo_untaint(struct bctx *b)
{
	for (int i = 0; i < b->nnorm; i++) {
		b->nb_st[i] = b->nb_st[i] == M_TAINTED ? M_STALE : b->nb_st[i];
		b->vb_st[i] = b->vb_st[i] == M_TAINTED ? M_STALE : b->vb_st[i];
	}
	for (int i = 0; i < b->a->nloops; i++) {
		b->bl_st[i] = b->bl_st[i] == M_TAINTED ? M_STALE : b->bl_st[i];
		b->el_st[i] = b->el_st[i] == M_TAINTED ? M_STALE : b->el_st[i];
	}
}

/*
 * The value reset @ti gives: a + c, over the symbols when it comes from
 * the entry, else bounded through the norm a. When a grows only on this
 * very transition, the reset reads it before its own last increment: its
 * bound less that increment (the partitioning example of the seed keeps
 * its exact bounds so).
 */
const struct poly *reset_value(struct bctx *b, int ti, const struct dc *d)
{
	const struct trans *t = &b->a->t[ti];
	const struct poly *v;
	bool only_here = true;
	int j;

	if (t->src == 0)
		return sym_addc(b->sx, sym_lin(b->sx, &d->a), d->c);
	if (d->a.n == 0)
		return sym_const(b->sx, d->c);
	j = norm_index(b, &d->a);
	if (j < 0)
		return sym_inf(b->sx);
	v = value_bound(b, j);
	for (int i = 0; i < b->a->nt; i++)
		only_here &= i == ti ? b->dc[j][i].kind == DC_INC && b->dc[j][i].a.n == 0
				     : b->dc[j][i].kind != DC_INC;
	if (only_here)
		v = sym_addc(b->sx, v, -b->dc[j][ti].c);
	/* What the transition assumes may bound a better: a <= g for a fact
	 * g - a >= 0 (the inner loop of a triangle starts below the outer's
	 * limit). */
	for (int k = 0; k < t->when.n; k++) {
		struct lin g = lin_add(&t->when.v[k], &d->a);
		bool cancels = !g.bad;
		int gi;

		for (int x = 0; x < d->a.n && cancels; x++)
			cancels = lin_coef(&g, d->a.var[x]) == 0;
		if (!cancels)
			continue;
		if (g.n == 0) {
			v = better(b, v, sym_const(b->sx, g.c));
			continue;
		}
		gi = norm_index(b, &g);
		if (gi >= 0 && gi != j)
			v = better(b, v, value_bound(b, gi));
	}
	return sym_addc(b->sx, v, d->c);
}

/* A reset to a + c, or an increment by it, reads the value of form a. */
static bool reads(const struct dc *d, const struct lin *a)
{
	return (d->kind == DC_RESET || (d->kind == DC_INC && d->a.n)) && lin_eq(&d->a, a);
}

/*
 * Where norm @norm is used: for Bound, where it decreases or guards a
 * transition; for VB (@value), where a reset reads it.
 */
static bool *uses(const struct bctx *b, int norm, bool value)
{
	const struct absprog *a = b->a;
	bool *use = xcalloc((size_t)a->ncut, sizeof(*use));

	for (int i = 0; i < a->nt; i++) {
		const struct dc *d = &b->dc[norm][i];

		if (!value && (d->kind == DC_DEC || d->guarded))
			use[a->t[i].src] = true;
		for (int v = 0; value && v < b->nnorm; v++)
			if (reads(&b->dc[v][i], &b->norm[norm]) && a->t[i].src != 0)
				use[a->t[i].src] = true;
	}
	return use;
}

/*
 * What a reset or an increment at @ti puts into @norm counts only when a
 * use can follow before another reset throws it away (an inner loop's
 * counter, grown as the outer loop moves on, is reset before the inner
 * loop runs again).
 */
static bool feeds(const struct bctx *b, int norm, int ti, const bool *use)
{
	const struct absprog *a = b->a;
	bool *resets = xcalloc((size_t)a->nt + 1, sizeof(*resets)), res;

	for (int i = 0; i < a->nt; i++)
		resets[i] = b->dc[norm][i].kind == DC_RESET;
	res = use[a->t[ti].dst] || reaches(b, a->t[ti].dst, use, resets);
	free(resets);
	return res;
}

/*
 * Sum over the transitions of @norm of kind @kind (resets or increments)
 * of how often each runs times what it adds. Those leaving a cut point
 * that runs at most once count the largest of them, not their sum (one
 * of them runs); the others, grouped by equal amounts, share a bound.
 */
static const struct poly *feed(struct bctx *b, int norm, enum dc_kind kind, bool clip, int64_t div,
			       bool value)
{
	const struct absprog *a = b->a;
	const struct poly *sum = sym_const(b->sx, 0);
	const struct poly **amount = xcalloc((size_t)a->nt + 1, sizeof(*amount));
	bool *done = xcalloc((size_t)a->nt + 1, sizeof(*done));
	int *group = xmalloc(((size_t)a->nt + 1) * sizeof(*group));
	bool *use = uses(b, norm, value);

	for (int i = 0; i < a->nt; i++) {
		const struct dc *d = &b->dc[norm][i];

		if (d->kind != kind || !feeds(b, norm, i, use))
			continue;
		/* An increment by a value (s += i) adds at most its largest. */
		if (kind == DC_INC && d->a.n == 0)
			amount[i] = sym_const(b->sx, d->c);
		else
			amount[i] = reset_value(b, i, d);
		if (clip || kind == DC_INC)
			amount[i] = sym_max0(b->sx, amount[i]);
		if (div > 1)
			amount[i] = sym_ceildiv(b->sx, amount[i], div);
	}
	/* Once-only cut points: the largest amount leaving each. */
	for (int c = 0; c < a->ncut; c++) {
		const struct poly *most = NULL;

		if (b->cyclic[c])
			continue;
		for (int i = 0; i < a->nt; i++) {
			if (!amount[i] || a->t[i].src != c)
				continue;
			most = most ? sym_max(b->sx, most, amount[i]) : amount[i];
			done[i] = true;
		}
		if (most)
			sum = sym_add(b->sx, sum, most);
	}
	for (int i = 0; i < a->nt && !sym_is_inf(sum); i++) {
		const struct poly *prod, *ser;
		int n = 0;

		if (!amount[i] || done[i])
			continue;
		for (int j = i; j < a->nt; j++) {
			if (amount[j] && !done[j] && a->t[j].src == a->t[i].src &&
			    sym_better(b->sx, amount[j], amount[i]) == 0 &&
			    sym_better(b->sx, amount[i], amount[j]) == 0) {
				group[n++] = j;
				done[j] = true;
			}
		}
		prod = sym_mul(b->sx, bound_set(b, group, n), amount[i]);
		if (kind == DC_RESET && clip && div <= 1 && (ser = series(b, norm, group, n))) {
			prod = better(b, prod, ser);
		}
		sum = sym_add(b->sx, sum, prod);
	}
	free(amount);
	free(done);
	free(group);
	free(use);
	return sum;
}

/*
 * An unknown change of @norm matters when a cut point in @at can follow it
 * before a reset gives the norm a known value again; *@line: where.
 */
static bool unknown_reaches(const struct bctx *b, int norm, const bool *at, int *line)
{
	const struct absprog *a = b->a;
	bool *resets = xcalloc((size_t)a->nt + 1, sizeof(*resets)), res = false;

	for (int i = 0; i < a->nt; i++)
		resets[i] = b->dc[norm][i].kind == DC_RESET;
	for (int i = 0; i < a->nt && !res; i++) {
		if (b->dc[norm][i].kind != DC_UNKNOWN)
			continue;
		if (at[a->t[i].dst] || reaches(b, a->t[i].dst, at, resets)) {
			res = true;
			*line = a->t[i].line;
		}
	}
	free(resets);
	return res;
}

/* ... a decrease of it, for Bound. */
static bool unknown_matters(const struct bctx *b, int norm, int *line)
{
	const struct absprog *a = b->a;
	bool *dec_src = xcalloc((size_t)a->ncut, sizeof(*dec_src)), res;

	for (int i = 0; i < a->nt; i++)
		if (b->dc[norm][i].kind == DC_DEC)
			dec_src[a->t[i].src] = true;
	res = unknown_reaches(b, norm, dec_src, line);
	free(dec_src);
	return res;
}

/* ... a transition that reads it as the value of a reset, for VB. */
static bool unknown_read(const struct bctx *b, int norm)
{
	const struct absprog *a = b->a;
	bool *use = xcalloc((size_t)a->ncut, sizeof(*use)), res;
	int line;

	for (int v = 0; v < b->nnorm; v++)
		for (int i = 0; i < a->nt; i++)
			if (reads(&b->dc[v][i], &b->norm[norm]) && a->t[i].src != 0)
				use[a->t[i].src] = true;
	res = unknown_reaches(b, norm, use, &line);
	free(use);
	return res;
}

/*
 * Bound(v): what resets and increments can put into norm @v in one call,
 * which bounds both how many guarded decreases it can take and how often
 * a transition guarded by v >= 1 runs with a decrease between two runs.
 */
const struct poly *norm_bound(struct bctx *b, int v)
{
	const struct absprog *a = b->a;
	const struct poly *r, *old;
	int64_t min_dec = 0;
	bool has_inc = false;
	int hits = b->hits, line;

	if (b->nb_st[v] == M_DONE || b->nb_st[v] == M_TAINTED)
		return b->nb[v];
	if (b->nb_st[v] == M_RUNNING || over_budget(b)) {
		b->hits++;
		set_why(b, v, "depends on itself through the loops");
		return sym_inf(b->sx);
	}
	old = b->nb_st[v] == M_STALE ? b->nb[v] : NULL;
	b->nb_st[v] = M_RUNNING;
	for (int i = 0; i < a->nt; i++) {
		const struct dc *d = &b->dc[v][i];

		if (d->kind == DC_DEC && (min_dec == 0 || d->c < min_dec))
			min_dec = d->c;
		has_inc |= d->kind == DC_INC;
	}
	if (unknown_matters(b, v, &line)) {
		char *what = xasprintf("changes at line %d in a way we cannot follow", line);

		set_why(b, v, what);
		free(what);
		r = sym_inf(b->sx);
	} else {
		/* What resets and increments put in bounds the decreases, and
		 * also how often a transition guarded by v >= 1 can run when a
		 * decrease comes between two runs. */
		if (min_dec == 0)
			min_dec = 1;
		/* Steps of d > 1 divide what resets put in, when nothing is added
		 * a little at a time (then a step may be spent on a remainder). */
		r = feed(b, v, DC_RESET, true, has_inc ? 1 : min_dec, false);
		if (has_inc)
			r = sym_add(b->sx, r, feed(b, v, DC_INC, false, 1, false));
	}
	return memo_keep(b, &b->nb_st[v], &b->nb[v], r, hits, old);
}

/* VB(v): the largest value norm @v can have. */
const struct poly *value_bound(struct bctx *b, int v)
{
	const struct absprog *a = b->a;
	const struct poly *r = NULL, *old;
	int hits = b->hits;

	if (b->vb_st[v] == M_DONE || b->vb_st[v] == M_TAINTED)
		return b->vb[v];
	if (b->vb_st[v] == M_RUNNING || over_budget(b)) {
		b->hits++;
		return sym_inf(b->sx);
	}
	old = b->vb_st[v] == M_STALE ? b->vb[v] : NULL;
	b->vb_st[v] = M_RUNNING;
	for (int i = 0; i < a->nt; i++) {
		const struct dc *d = &b->dc[v][i];

		if (d->kind == DC_RESET) {
			const struct poly *x = reset_value(b, i, d);

			r = r ? sym_max(b->sx, r, x) : x;
		}
	}
	if (!r || unknown_read(b, v))
		r = sym_inf(b->sx); /* never set, or set to what we cannot follow */
	if (!sym_is_inf(r))
		r = sym_add(b->sx, r, feed(b, v, DC_INC, false, 1, true));
	return memo_keep(b, &b->vb_st[v], &b->vb[v], r, hits, old);
}

/*
 * Every transition of @s is guarded by norm @v, and between two of them
 * @v must go down. The decrease need not be guarded: each run of @s still
 * finds v >= 1, so every run but the last costs a unit of what resets and
 * increments put in, whatever happened in between.
 */
static bool guard_criterion(const struct bctx *b, int v, const int *s, int n)
{
	const struct absprog *a = b->a;
	bool *down = xcalloc((size_t)a->nt + 1, sizeof(*down));
	bool *srcs = xcalloc((size_t)a->ncut, sizeof(*srcs)), ok = true;

	for (int i = 0; i < a->nt; i++)
		down[i] = b->dc[v][i].kind == DC_DEC ||
			  (b->dc[v][i].has_delta && b->dc[v][i].delta <= -1);
	for (int k = 0; k < n; k++)
		srcs[a->t[s[k]].src] = true;
	for (int k = 0; k < n && ok; k++) {
		if (!b->dc[v][s[k]].guarded)
			ok = false;
		else if (!down[s[k]])
			ok = !srcs[a->t[s[k]].dst] && !reaches(b, a->t[s[k]].dst, srcs, down);
	}
	free(down);
	free(srcs);
	return ok;
}

/* Every cycle through @loop's header within the loop has a transition of
 * @mark. */
bool cycles_marked(const struct bctx *b, int loop, const bool *mark)
{
	const struct absprog *a = b->a;
	bool res;

	for (int i = 0; i < a->nt; i++)
		b->skip[i] = mark[i] || !cut_within(b, a->t[i].src, loop) ||
			     !cut_within(b, a->t[i].dst, loop);
	b->target[a->loops[loop].cut] = true;
	res = !reaches(b, a->loops[loop].cut, b->target, b->skip);
	b->target[a->loops[loop].cut] = false;
	return res;
}

static const struct poly *visits(struct bctx *b, int cut)
{
	int l = cut_loop(b, cut);

	if (cut == 0)
		return sym_const(b->sx, 1);
	if (l < 0)
		return sym_inf(b->sx);
	return sym_add(b->sx, entries(b, l), back_edges(b, l));
}

/* TB of the transitions @s together: how often they run in one call. */
const struct poly *bound_set(struct bctx *b, const int *s, int n)
{
	const struct absprog *a = b->a;
	const struct poly *best = sym_inf(b->sx);
	bool once = true, one_src = true, exits = true;
	int l0 = n ? cut_loop(b, a->t[s[0]].src) : -1;

	if (n == 0)
		return sym_const(b->sx, 0);
	if (over_budget(b))
		return best;
	for (int k = 0; k < n; k++) {
		const struct trans *t = &a->t[s[k]];

		once &= !b->cyclic[t->src];
		one_src &= t->src == a->t[s[0]].src;
		exits &= l0 >= 0 && cut_within(b, t->src, l0) && !cut_within(b, t->dst, l0);
	}
	/* Leaving a cut point that runs once, one of them runs, once. */
	if (once && one_src)
		return sym_const(b->sx, 1);
	/* Leaving a loop happens once per entry into it. */
	if (exits)
		best = entries(b, l0);
	for (int v = 0; v < b->nnorm; v++)
		if (guard_criterion(b, v, s, n))
			best = better(b, best, norm_bound(b, v));
	if (one_src) {
		best = better(b, best, visits(b, a->t[s[0]].src));
	} else {
		/* Each source's transitions apart, summed. */
		const struct poly *sum = sym_const(b->sx, 0);
		bool *done = xcalloc((size_t)n, sizeof(*done));
		int *part = xmalloc((size_t)n * sizeof(*part));

		for (int k = 0; k < n && !sym_is_inf(sum); k++) {
			int m = 0;

			if (done[k])
				continue;
			for (int j = k; j < n; j++)
				if (!done[j] && a->t[s[j]].src == a->t[s[k]].src) {
					part[m++] = s[j];
					done[j] = true;
				}
			sum = sym_add(b->sx, sum, bound_set(b, part, m));
		}
		free(done);
		free(part);
		best = better(b, best, sum);
	}
	return best;
}
