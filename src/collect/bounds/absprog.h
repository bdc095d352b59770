/*
 * The abstract program of one function: its cut points (the entry, each
 * loop's header, the exit) and the transitions between them, one per path
 * through the control-flow graph that meets no other cut point, each
 * summarised by symbolic execution as what it assumes and what it leaves
 * in each variable, in terms of the values at its start. Beside them,
 * invariants at each cut point (linear facts that hold on every arrival).
 */
#ifndef COLLECT_BOUNDS_ABSPROG_H
#define COLLECT_BOUNDS_ABSPROG_H

#include <stdbool.h>

#include "collect/bounds/facts.h"
#include "collect/bounds/ir.h"

struct trans {
	int src, dst;	    /* cut points */
	struct val *post;   /* per variable, over the values at src */
	struct facts guard; /* what the path assumes (its conditions) */
	struct facts when;  /* that and the invariant at src */
	int line;	    /* of the path's first statement */
};

/* A loop of the graph: its header, body and place in the source. */
struct aloop {
	int header;	    /* node */
	int cut;	    /* its cut point */
	int parent;	    /* the innermost loop around it, or -1 */
	bool *in;	    /* per node: in the body */
	struct ir_loop src; /* where the source has it */
	bool reachable;	    /* false: the header is never reached */
};

struct absprog {
	const struct ir_func *f;
	int ncut;      /* 0: entry, 1..nloops: loop headers, ncut - 1: exit */
	int *cut_node; /* per cut point, its node */
	int *node_cut; /* per node, its cut point or -1 */
	struct aloop *loops;
	int nloops;
	struct trans *t;
	int nt;
	size_t t_cap;
	struct facts *inv; /* per cut point */
	/* Set when the analysis cannot be trusted for this function at all
	 * (irreducible control flow, an opaque construct, too many paths). */
	char *unsupported;
};

int absprog_build(const struct ir_func *f, struct absprog **out);
void absprog_free(struct absprog *a);
/* The loop whose cut point is @cut, or -1 (entry, exit). */
int absprog_cut_loop(const struct absprog *a, int cut);
/* Whether loop @inner is @outer or nested in it. */
bool absprog_loop_within(const struct absprog *a, int inner, int outer);

#endif
