/* Dominators, back edges and natural loops of a function's graph. */
#ifndef COLLECT_BOUNDS_GRAPH_H
#define COLLECT_BOUNDS_GRAPH_H

#include <stdbool.h>

struct ir_func;

struct graph {
	int *order; /* reachable nodes in reverse postorder, the entry first */
	int nreach;
	int *rank; /* per node: its place in order, -1 when unreachable */
	int *idom; /* per node: its immediate dominator (the entry: itself) */
};

int graph_analyse(const struct ir_func *f, struct graph *g);
void graph_free(struct graph *g);
bool graph_dominates(const struct graph *g, int a, int b);
/* u -> v returns to a node that dominates u. */
bool graph_is_back_edge(const struct graph *g, int u, int v);
/* Marks in @in (zeroed, one per node) the natural loop of @header: the
 * nodes that reach one of its back edges without passing through it. */
void graph_natural_loop(const struct ir_func *f, const struct graph *g, int header, bool *in);
/* Every cycle goes through a back edge. */
bool graph_reducible(const struct ir_func *f, const struct graph *g);

#endif
