/*
 * Symbolic execution along a path: each variable's value as a form over
 * the values at the path's start, and the linear facts the path assumed.
 * Conversions that may wrap around (unsigned and narrow types) are proved
 * harmless from the facts, or mark the value as possibly above or below
 * its form, so that no conclusion rests on arithmetic C does not do.
 */
#ifndef COLLECT_BOUNDS_EXEC_H
#define COLLECT_BOUNDS_EXEC_H

#include <stdbool.h>

#include "collect/bounds/facts.h"
#include "collect/bounds/ir.h"

struct sstate {
	struct val *sigma;  /* per variable */
	struct facts facts; /* what holds: the start's facts and the path's */
	struct facts guard; /* what the path assumed */
	bool dead;	    /* the path cannot be taken */
	int line;	    /* the first line the path runs */
};

/* At the function's entry the parameters and globals are themselves (the
 * symbols bounds are written in) and the locals unknown; elsewhere every
 * variable starts as itself. @facts: what holds at the start. */
void sstate_init(struct sstate *s, const struct ir_func *f, bool at_entry,
		 const struct facts *facts);
void sstate_copy(struct sstate *to, const struct sstate *from, int nvars);
void sstate_free(struct sstate *s);
/* Keeps in @a what both states agree on. */
void sstate_join(struct sstate *a, const struct sstate *b, int nvars);

void exec_node(const struct ir_func *f, const struct ir_node *n, struct sstate *s);
struct val exec_eval(const struct ir_func *f, const struct ir_expr *e, const struct sstate *s);
/* The value of form @l (over the variables at some point) from the values
 * @sigma give those variables. */
struct val exec_subst(const struct lin *l, const struct val *sigma);

#endif
