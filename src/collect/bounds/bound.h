/*
 * The bound analysis: for every loop of a function, how many times its
 * back edge can be taken in one call (a loop at the top level also counts
 * the first arrival at its header, as Loopus counts), and the function's
 * total, the sum of its loops' bounds. The method is the difference-
 * constraint bound analysis of Sinn, Zuleger and Veith ("A Simple and
 * Scalable Static Analysis for Bound Analysis and Amortized Complexity
 * Analysis", CAV 2014) over the abstract program of absprog.h, with
 * logarithmic bounds for counters that are halved or multiplied. A bound
 * it cannot prove is infinite, with the reason: never a wrong finite one.
 */
#ifndef COLLECT_BOUNDS_BOUND_H
#define COLLECT_BOUNDS_BOUND_H

#include <stdbool.h>

#include "collect/bounds/ir.h"
#include "collect/bounds/sym.h"

struct loop_bound {
	struct ir_loop src; /* where the source has it */
	bool nested;	    /* inside another loop */
	const struct poly *bound;
	char *reason; /* why there is no finite bound */
};

struct func_bounds {
	char *name;
	int line, col;		  /* the name, from 1 */
	struct loop_bound *loops; /* in source order */
	int nloops;
	const struct poly *total;
	char *total_reason;
	struct sym_ctx *sx; /* owns the expressions */
};

int bound_function(const struct ir_func *f, struct func_bounds *out);
void func_bounds_release(struct func_bounds *fb);

#endif
