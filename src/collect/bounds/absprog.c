/*
 * Building the abstract program (absprog.h): the loops from the graph,
 * the cut points, the transitions by symbolic execution of every path
 * between two cut points, and the invariants at the cut points.
 */
#include <stdlib.h>
#include <string.h>

#include "collect/bounds/absprog.h"
#include "collect/bounds/exec.h"
#include "collect/bounds/graph.h"
#include "util/common.h"

/* States kept apart at one node before they are joined into one (which
 * loses what they disagree on), and transitions at most per function. */
#define MAX_STATES 24
#define MAX_TRANS 4000

/* ---- loops and cut points ---- */

static int add_loop(struct absprog *a, int header, const struct ir_loop *src)
{
	struct aloop *l;

	a->loops = xrealloc(a->loops, (size_t)(a->nloops + 1) * sizeof(*a->loops));
	l = &a->loops[a->nloops];
	memset(l, 0, sizeof(*l));
	l->header = header;
	l->src = *src;
	l->cut = -1;
	l->parent = -1;
	l->in = xcalloc((size_t)a->f->nnodes, sizeof(*l->in));
	return a->nloops++;
}

static int loop_of_header(const struct absprog *a, int node)
{
	for (int i = 0; i < a->nloops; i++)
		if (a->loops[i].header == node)
			return i;
	return -1;
}

static void find_loops(struct absprog *a, const struct graph *g)
{
	const struct ir_func *f = a->f;
	bool *is_header = xcalloc((size_t)f->nnodes, sizeof(*is_header));

	for (int u = 0; u < f->nnodes; u++)
		for (int k = 0; g->rank[u] >= 0 && k < f->nodes[u].nsucc; k++)
			if (graph_is_back_edge(g, u, f->nodes[u].succ[k]))
				is_header[f->nodes[u].succ[k]] = true;
	/* The loops of the source, reached or not... */
	for (int i = 0; i < f->nloops; i++)
		add_loop(a, f->loops[i].header, &f->loops[i]);
	/* ...and those gotos make: from the label to the last goto back. */
	for (int h = 0; h < f->nnodes; h++) {
		struct ir_loop src;

		if (!is_header[h] || loop_of_header(a, h) >= 0)
			continue;
		memset(&src, 0, sizeof(src));
		src.kind = LOOP_GOTO;
		src.line = src.end_line = f->nodes[h].line;
		src.col = 1;
		src.header = h;
		for (int u = 0; u < f->nnodes; u++)
			for (int k = 0; g->rank[u] >= 0 && k < f->nodes[u].nsucc; k++)
				if (f->nodes[u].succ[k] == h && graph_is_back_edge(g, u, h) &&
				    f->nodes[u].line > src.end_line)
					src.end_line = f->nodes[u].line;
		add_loop(a, h, &src);
	}
	for (int i = 0; i < a->nloops; i++) {
		struct aloop *l = &a->loops[i];

		l->reachable = g->rank[l->header] >= 0;
		if (l->reachable && is_header[l->header])
			graph_natural_loop(f, g, l->header, l->in);
		else
			l->in[l->header] = true;
	}
	free(is_header);
}

static int body_size(const struct absprog *a, int i)
{
	int n = 0;

	for (int u = 0; u < a->f->nnodes; u++)
		n += a->loops[i].in[u];
	return n;
}

static void nest_loops(struct absprog *a)
{
	for (int i = 0; i < a->nloops; i++) {
		int best = -1, best_size = 0;

		for (int j = 0; j < a->nloops; j++) {
			int size;

			if (j == i || !a->loops[j].in[a->loops[i].header] ||
			    a->loops[j].header == a->loops[i].header)
				continue;
			size = body_size(a, j);
			if (best < 0 || size < best_size) {
				best = j;
				best_size = size;
			}
		}
		a->loops[i].parent = best;
	}
}

static void make_cuts(struct absprog *a)
{
	const struct ir_func *f = a->f;

	a->cut_node = xcalloc((size_t)a->nloops + 2, sizeof(*a->cut_node));
	a->node_cut = xmalloc((size_t)f->nnodes * sizeof(*a->node_cut));
	for (int u = 0; u < f->nnodes; u++)
		a->node_cut[u] = -1;
	a->cut_node[a->ncut++] = f->entry;
	for (int i = 0; i < a->nloops; i++) {
		if (!a->loops[i].reachable)
			continue;
		a->loops[i].cut = a->ncut;
		a->cut_node[a->ncut++] = a->loops[i].header;
	}
	a->cut_node[a->ncut++] = f->exit;
	for (int c = 0; c < a->ncut; c++)
		a->node_cut[a->cut_node[c]] = c;
}

int absprog_cut_loop(const struct absprog *a, int cut)
{
	for (int i = 0; i < a->nloops; i++)
		if (a->loops[i].cut == cut)
			return i;
	return -1;
}

bool absprog_loop_within(const struct absprog *a, int inner, int outer)
{
	for (int l = inner; l >= 0; l = a->loops[l].parent)
		if (l == outer)
			return true;
	return false;
}

/* ---- transitions ---- */

struct slist {
	struct sstate *v;
	int n;
	size_t cap;
};

static void slist_push(struct slist *l, struct sstate *s, int nvars)
{
	if (l->n == MAX_STATES) {
		sstate_join(&l->v[0], s, nvars);
		sstate_free(s);
		return;
	}
	XGROW(l->v, (size_t)l->n + 1, l->cap);
	l->v[l->n++] = *s;
}

static void add_trans(struct absprog *a, int src, int dst, struct sstate *s)
{
	struct trans *t;

	if (a->nt == MAX_TRANS) {
		if (!a->unsupported)
			a->unsupported = xstrdup("too many paths through the function");
		sstate_free(s);
		return;
	}
	XGROW(a->t, (size_t)a->nt + 1, a->t_cap);
	t = &a->t[a->nt++];
	memset(t, 0, sizeof(*t));
	t->src = src;
	t->dst = dst;
	t->post = s->sigma;
	t->when = s->facts;
	t->guard = s->guard;
	t->line = s->line;
}

/* The nodes reached from @start before any cut point, in an order that
 * puts every node after those that lead to it (the graph without its
 * back edges has no cycle). */
static int region_order(const struct absprog *a, int start, int *order)
{
	const struct ir_func *f = a->f;
	int nn = f->nnodes, sp = 0, n = 0;
	int *stack = xmalloc((size_t)nn * sizeof(*stack)), *next = xcalloc((size_t)nn, sizeof(int));
	bool *seen = xcalloc((size_t)nn, sizeof(*seen));

	stack[sp++] = start;
	seen[start] = true;
	while (sp) {
		int u = stack[sp - 1];

		if (next[u] < f->nodes[u].nsucc) {
			int v = f->nodes[u].succ[next[u]++];

			if (!seen[v] && a->node_cut[v] < 0) {
				seen[v] = true;
				stack[sp++] = v;
			}
			continue;
		}
		order[n++] = u;
		sp--;
	}
	for (int i = 0; i < n / 2; i++) {
		int t = order[i];

		order[i] = order[n - 1 - i];
		order[n - 1 - i] = t;
	}
	free(stack);
	free(next);
	free(seen);
	return n;
}

static void paths_from(struct absprog *a, int c)
{
	const struct ir_func *f = a->f;
	int *order = xmalloc((size_t)f->nnodes * sizeof(*order));
	int n = region_order(a, a->cut_node[c], order);
	struct slist *states = xcalloc((size_t)f->nnodes, sizeof(*states));
	struct sstate init;

	sstate_init(&init, f, c == 0, &a->inv[c]);
	slist_push(&states[a->cut_node[c]], &init, f->nvars);
	for (int i = 0; i < n; i++) {
		int u = order[i];
		const struct ir_node *node = &f->nodes[u];

		for (int k = 0; k < states[u].n; k++) {
			struct sstate *s = &states[u].v[k];

			exec_node(f, node, s);
			if (s->dead || node->op == OP_EXIT) {
				sstate_free(s);
				continue;
			}
			for (int j = 0; j < node->nsucc; j++) {
				int v = node->succ[j];
				struct sstate next;

				if (j + 1 < node->nsucc)
					sstate_copy(&next, s, f->nvars);
				else
					next = *s;
				if (a->node_cut[v] >= 0)
					add_trans(a, c, a->node_cut[v], &next);
				else
					slist_push(&states[v], &next, f->nvars);
			}
			if (node->nsucc == 0)
				sstate_free(s);
		}
		free(states[u].v);
		memset(&states[u], 0, sizeof(states[u]));
	}
	for (int u = 0; u < f->nnodes; u++) {
		for (int k = 0; k < states[u].n; k++)
			sstate_free(&states[u].v[k]);
		free(states[u].v);
	}
	free(states);
	free(order);
}

static void clear_trans(struct absprog *a)
{
	for (int i = 0; i < a->nt; i++) {
		free(a->t[i].post);
		facts_free(&a->t[i].when);
		facts_free(&a->t[i].guard);
	}
	a->nt = 0;
}

static void compute_trans(struct absprog *a, const bool *valid)
{
	clear_trans(a);
	for (int c = 0; c < a->ncut - 1; c++)
		if (c == 0 || valid[c])
			paths_from(a, c);
}

/* ---- invariants ---- */

/* x's value after the transition is x + d for a known d. */
static bool shifted(const struct val *post, int x, int64_t *d)
{
	const struct val *v = &post[x];

	if (!val_is_lin(v) || v->l.n != 1 || v->l.var[0] != x || v->l.k[0] != 1)
		return false;
	*d = v->l.c;
	return true;
}

/* A form over the values before, rewritten over those after; false when a
 * variable in it changed in a way we cannot undo. */
static bool to_after(const struct val *post, const struct lin *e, struct lin *out)
{
	struct lin r = *e;

	for (int i = 0; i < e->n; i++) {
		int64_t d;
		struct lin by;

		if (!shifted(post, e->var[i], &d))
			return false;
		by = lin_var(e->var[i]);
		by = lin_addc(&by, -d);
		r = lin_subst(&r, e->var[i], &by);
	}
	*out = r;
	return !r.bad;
}

/* What still holds after transition @t of what held before (@before). */
static void transfer(const struct ir_func *f, const struct facts *before, const struct val *post,
		     struct facts *after)
{
	after->n = 0;
	for (int i = 0; i < before->n; i++) {
		const struct lin *e = &before->v[i];
		struct lin g;

		if (to_after(post, e, &g)) {
			facts_add(after, &g);
			continue;
		}
		/* x >= c (c >= 0) survives x := k * x for k >= 1. */
		if (e->n == 1 && e->k[0] == 1 && e->c <= 0) {
			const struct val *v = &post[e->var[0]];

			if (val_is_lin(v) && v->l.n == 1 && v->l.var[0] == e->var[0] &&
			    v->l.k[0] >= 1 && v->l.c >= 0)
				facts_add(after, e);
		}
	}
	/* Assignments: x = e afterwards, when e can be said afterwards. */
	for (int x = 0; x < f->nvars; x++) {
		const struct val *v = &post[x];
		struct lin g, d;
		int64_t dd;

		if (shifted(post, x, &dd) || !val_is_lin(v) || !to_after(post, &v->l, &g))
			continue;
		d = lin_var(x);
		d = lin_sub(&d, &g);
		facts_add(after, &d);
		d = lin_scale(&d, -1);
		facts_add(after, &d);
	}
}

/* Widening: a fact whose constant still moves is dropped, so the
 * iteration ends. */
static void widen(struct facts *acc, const struct facts *old)
{
	for (int i = 0; i < acc->n; i++) {
		bool stays = false;

		for (int j = 0; j < old->n && !stays; j++)
			stays = lin_eq(&acc->v[i], &old->v[j]);
		if (!stays)
			acc->v[i--] = acc->v[--acc->n];
	}
}

static void compute_invariants(struct absprog *a, bool *valid)
{
	int *updates = xcalloc((size_t)a->ncut, sizeof(*updates));
	struct facts acc = {0}, before = {0}, p = {0};
	bool changed = true;

	for (int c = 0; c < a->ncut; c++) {
		valid[c] = c == 0;
		a->inv[c].n = 0;
	}
	for (int round = 0; changed && round < 40; round++) {
		changed = false;
		for (int d = 1; d < a->ncut; d++) {
			bool have = false;

			for (int i = 0; i < a->nt; i++) {
				const struct trans *t = &a->t[i];

				if (t->dst != d || !valid[t->src])
					continue;
				facts_copy(&before, &a->inv[t->src]);
				facts_add_all(&before, &t->when);
				transfer(a->f, &before, t->post, &p);
				if (!have)
					facts_copy(&acc, &p);
				else
					facts_join(&acc, &p);
				have = true;
			}
			if (!have)
				continue;
			if (valid[d]) {
				facts_join(&acc, &a->inv[d]);
				/* Widening: past a few rounds only what stays put is kept. */
				if (updates[d] > 4)
					widen(&acc, &a->inv[d]);
			}
			if (!valid[d] || !facts_equal(&acc, &a->inv[d])) {
				facts_copy(&a->inv[d], &acc);
				valid[d] = true;
				updates[d]++;
				changed = true;
			}
		}
	}
	facts_free(&acc);
	facts_free(&before);
	facts_free(&p);
	free(updates);
}

int absprog_build(const struct ir_func *f, struct absprog **out)
{
	struct absprog *a = xcalloc(1, sizeof(*a));
	struct graph g;
	bool *valid;

	a->f = f;
	graph_analyse(f, &g);
	if (f->opaque)
		a->unsupported = xstrdup(f->opaque);
	else if (!graph_reducible(f, &g))
		a->unsupported = xstrdup("a goto jumps into a loop, past its header");
	find_loops(a, &g);
	nest_loops(a);
	make_cuts(a);
	graph_free(&g);
	a->inv = xcalloc((size_t)a->ncut, sizeof(*a->inv));
	valid = xcalloc((size_t)a->ncut, sizeof(*valid));
	if (!a->unsupported) {
		/* Twice: the invariants make the second round's paths sharper
		 * (fewer wrap-arounds to fear), and those the invariants. */
		for (int c = 0; c < a->ncut; c++)
			valid[c] = true; /* no facts yet: nothing wrong in them */
		compute_trans(a, valid);
		compute_invariants(a, valid);
		compute_trans(a, valid);
		compute_invariants(a, valid);
		for (int i = 0; i < a->nt; i++)
			facts_add_all(&a->t[i].when, &a->inv[a->t[i].src]);
	}
	free(valid);
	*out = a;
	return 0;
}

void absprog_free(struct absprog *a)
{
	if (!a)
		return;
	clear_trans(a);
	free(a->t);
	for (int i = 0; i < a->nloops; i++)
		free(a->loops[i].in);
	free(a->loops);
	for (int c = 0; c < a->ncut; c++)
		facts_free(&a->inv[c]);
	free(a->inv);
	free(a->cut_node);
	free(a->node_cut);
	free(a->unsupported);
	free(a);
}
