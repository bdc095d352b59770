/*
 * The loops of a control-flow graph: reachability, dominators (Cooper,
 * Harvey, Kennedy: "A Simple, Fast Dominance Algorithm"), back edges and
 * natural loops, and whether the graph is reducible (every cycle enters
 * through one header), which the analysis needs.
 */
#include <stdlib.h>
#include <string.h>

#include "collect/bounds/graph.h"
#include "collect/bounds/ir.h"
#include "util/common.h"

/* Reverse postorder of the nodes reachable from the entry. */
static int postorder(const struct ir_func *f, int *order, int *rank)
{
	int *stack = xmalloc((size_t)f->nnodes * sizeof(*stack) * 2), sp = 0, n = 0;
	int *next = xcalloc((size_t)f->nnodes, sizeof(*next));
	bool *seen = xcalloc((size_t)f->nnodes, sizeof(*seen));

	stack[sp++] = f->entry;
	seen[f->entry] = true;
	while (sp) {
		int u = stack[sp - 1];

		if (next[u] < f->nodes[u].nsucc) {
			int v = f->nodes[u].succ[next[u]++];

			if (!seen[v]) {
				seen[v] = true;
				stack[sp++] = v;
			}
			continue;
		}
		sp--;
		order[n++] = u;
	}
	for (int i = 0; i < f->nnodes; i++)
		rank[i] = -1;
	/* Reverse: order[0] is the entry. */
	for (int i = 0; i < n / 2; i++) {
		int t = order[i];

		order[i] = order[n - 1 - i];
		order[n - 1 - i] = t;
	}
	for (int i = 0; i < n; i++)
		rank[order[i]] = i;
	free(stack);
	free(next);
	free(seen);
	return n;
}

static int intersect(const int *idom, const int *rank, int a, int b)
{
	while (a != b) {
		while (rank[a] > rank[b])
			a = idom[a];
		while (rank[b] > rank[a])
			b = idom[b];
	}
	return a;
}

int graph_analyse(const struct ir_func *f, struct graph *g)
{
	int nn = f->nnodes, changed = 1;
	int **preds = xcalloc((size_t)nn, sizeof(*preds)),
	    *npred = xcalloc((size_t)nn, sizeof(int));

	memset(g, 0, sizeof(*g));
	g->order = xmalloc((size_t)nn * sizeof(*g->order));
	g->rank = xmalloc((size_t)nn * sizeof(*g->rank));
	g->idom = xmalloc((size_t)nn * sizeof(*g->idom));
	g->nreach = postorder(f, g->order, g->rank);
	for (int u = 0; u < nn; u++) {
		g->idom[u] = -1;
		if (g->rank[u] < 0)
			continue;
		for (int k = 0; k < f->nodes[u].nsucc; k++) {
			int v = f->nodes[u].succ[k];

			preds[v] = xrealloc(preds[v], (size_t)(npred[v] + 1) * sizeof(int));
			preds[v][npred[v]++] = u;
		}
	}
	g->idom[f->entry] = f->entry;
	while (changed) {
		changed = 0;
		for (int i = 1; i < g->nreach; i++) {
			int u = g->order[i], nd = -1;

			for (int k = 0; k < npred[u]; k++) {
				int p = preds[u][k];

				if (g->idom[p] < 0)
					continue;
				nd = nd < 0 ? p : intersect(g->idom, g->rank, p, nd);
			}
			if (nd >= 0 && g->idom[u] != nd) {
				g->idom[u] = nd;
				changed = 1;
			}
		}
	}
	for (int u = 0; u < nn; u++)
		free(preds[u]);
	free(preds);
	free(npred);
	return 0;
}

bool graph_dominates(const struct graph *g, int a, int b)
{
	if (g->rank[a] < 0 || g->rank[b] < 0)
		return false;
	while (b != a) {
		int up = g->idom[b];

		if (up == b)
			return false;
		b = up;
	}
	return true;
}

bool graph_is_back_edge(const struct graph *g, int u, int v)
{
	return g->rank[u] >= 0 && graph_dominates(g, v, u);
}

void graph_natural_loop(const struct ir_func *f, const struct graph *g, int header, bool *in)
{
	int *stack = xmalloc((size_t)f->nnodes * sizeof(*stack)), sp = 0;
	int **preds = xcalloc((size_t)f->nnodes, sizeof(*preds));
	int *npred = xcalloc((size_t)f->nnodes, sizeof(*npred));

	for (int u = 0; u < f->nnodes; u++) {
		if (g->rank[u] < 0)
			continue;
		for (int k = 0; k < f->nodes[u].nsucc; k++) {
			int v = f->nodes[u].succ[k];

			preds[v] = xrealloc(preds[v], (size_t)(npred[v] + 1) * sizeof(int));
			preds[v][npred[v]++] = u;
		}
	}
	in[header] = true;
	for (int k = 0; k < npred[header]; k++) {
		int u = preds[header][k];

		if (graph_is_back_edge(g, u, header) && !in[u]) {
			in[u] = true;
			stack[sp++] = u;
		}
	}
	while (sp) {
		int u = stack[--sp];

		for (int k = 0; k < npred[u]; k++) {
			int p = preds[u][k];

			if (!in[p]) {
				in[p] = true;
				stack[sp++] = p;
			}
		}
	}
	for (int u = 0; u < f->nnodes; u++)
		free(preds[u]);
	free(preds);
	free(npred);
	free(stack);
}

bool graph_reducible(const struct ir_func *f, const struct graph *g)
{
	/* Without its back edges, a reducible graph has no cycle: a DFS that
	 * meets a node still on its stack by a forward edge proves one. */
	int nn = f->nnodes, sp = 0;
	int *stack = xmalloc((size_t)nn * sizeof(*stack)), *next = xcalloc((size_t)nn, sizeof(int));
	char *state = xcalloc((size_t)nn, 1); /* 0 new, 1 on stack, 2 done */
	bool ok = true;

	stack[sp++] = f->entry;
	state[f->entry] = 1;
	while (sp && ok) {
		int u = stack[sp - 1];

		if (next[u] < f->nodes[u].nsucc) {
			int v = f->nodes[u].succ[next[u]++];

			if (graph_is_back_edge(g, u, v))
				continue;
			if (state[v] == 1)
				ok = false;
			else if (state[v] == 0) {
				state[v] = 1;
				stack[sp++] = v;
			}
			continue;
		}
		state[u] = 2;
		sp--;
	}
	free(stack);
	free(next);
	free(state);
	return ok;
}

void graph_free(struct graph *g)
{
	free(g->order);
	free(g->rank);
	free(g->idom);
	memset(g, 0, sizeof(*g));
}
