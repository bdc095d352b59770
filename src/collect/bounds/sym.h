/*
 * Bound expressions: polynomials with integer coefficients over atoms --
 * a symbol (the value a parameter or global has when the function is
 * called), max(0, L) of a linear form L over symbols, log_k(max(1, P)),
 * ceil(P / k) and max(P, Q) -- or infinity. Built and simplified by the
 * bound analysis, printed in Loopus's spelling ("6 + 4 × max(0, (k + -1))")
 * and classed (O(n^2), O(log n), O(∞)). Every expression lives until its
 * context is freed.
 */
#ifndef COLLECT_BOUNDS_SYM_H
#define COLLECT_BOUNDS_SYM_H

#include <stdbool.h>
#include <stdint.h>

#include "collect/bounds/lin.h"

struct buf;
struct sym_ctx;
struct poly;

struct sym_class {
	bool inf;
	int deg; /* n^deg */
	int log; /* log^log n */
};

/* @names: the name of each variable id a symbol or a linear form uses. */
struct sym_ctx *sym_ctx_new(const char *const *names, int nnames);
void sym_ctx_free(struct sym_ctx *x);

const struct poly *sym_const(struct sym_ctx *x, int64_t c);
const struct poly *sym_inf(struct sym_ctx *x);
/* The linear form @l over symbols; infinity when it does not fit. */
const struct poly *sym_lin(struct sym_ctx *x, const struct lin *l);
const struct poly *sym_add(struct sym_ctx *x, const struct poly *a, const struct poly *b);
const struct poly *sym_mul(struct sym_ctx *x, const struct poly *a, const struct poly *b);
const struct poly *sym_addc(struct sym_ctx *x, const struct poly *a, int64_t c);
const struct poly *sym_scale(struct sym_ctx *x, const struct poly *a, int64_t c);
const struct poly *sym_max0(struct sym_ctx *x, const struct poly *a);
const struct poly *sym_max(struct sym_ctx *x, const struct poly *a, const struct poly *b);
/* log_k(max(1, a)), rounded down. */
const struct poly *sym_log(struct sym_ctx *x, int64_t k, const struct poly *a);
/* ceil(a / k) for k >= 2, of a value that is never negative. */
const struct poly *sym_ceildiv(struct sym_ctx *x, const struct poly *a, int64_t k);

bool sym_is_inf(const struct poly *a);
bool sym_is_const(const struct poly *a, int64_t *c);
/* Provably >= 0 for every value of the symbols. */
bool sym_nonneg(const struct sym_ctx *x, const struct poly *a);
struct sym_class sym_class_of(const struct sym_ctx *x, const struct poly *a);
/* "O(1)", "O(n^2)", "O(log n)", "O(n^1 log n)", "O(∞)" */
void sym_class_print(struct sym_class c, struct buf *out);
int sym_class_cmp(struct sym_class a, struct sym_class b);
void sym_print(const struct sym_ctx *x, const struct poly *a, struct buf *out);
/* The value with every symbol set to @v (variable ids indexed). */
double sym_eval(const struct sym_ctx *x, const struct poly *a, const double *v);
/* Which of two bounds to keep: the lower class, else the smaller value
 * for large symbols. Negative when @a is the better. */
int sym_better(const struct sym_ctx *x, const struct poly *a, const struct poly *b);

#endif
