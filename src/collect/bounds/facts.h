/*
 * Facts: linear constraints e >= 0 over the variables at some point, and
 * a small prover that decides whether a set of them implies another
 * (Fourier-Motzkin elimination over the rationals, which can only miss
 * an implication, never invent one).
 */
#ifndef COLLECT_BOUNDS_FACTS_H
#define COLLECT_BOUNDS_FACTS_H

#include <stdbool.h>

#include "collect/bounds/lin.h"

struct ir_func;

struct facts {
	struct lin *v;
	int n;
	size_t cap;
};

void facts_free(struct facts *f);
void facts_copy(struct facts *to, const struct facts *from);
/* Adds e >= 0 (tightened); false when it contradicts a fact at once. */
bool facts_add(struct facts *f, const struct lin *e);
void facts_add_all(struct facts *to, const struct facts *from);
/* Keeps what both sides imply by a fact of the same variable part: the
 * weaker constant of the two. */
void facts_join(struct facts *a, const struct facts *b);
bool facts_equal(const struct facts *a, const struct facts *b);

/*
 * Whether @f (and the ranges of the variables' types) implies e >= 0.
 * @fn gives the types; false also when the question is too big to settle.
 */
bool facts_prove(const struct ir_func *fn, const struct facts *f, const struct lin *e);
/* e >= k */
bool facts_prove_ge(const struct ir_func *fn, const struct facts *f, const struct lin *e,
		    int64_t k);

#endif
