/*
 * Linear forms over the integer variables of one function: sum of k * x
 * plus a constant, with 64-bit coefficients. A form has at most LIN_MAX
 * terms; one that would need more, or whose arithmetic overflows, is
 * "bad" and every analysis treats it as an unknown value (a safe answer).
 */
#ifndef COLLECT_BOUNDS_LIN_H
#define COLLECT_BOUNDS_LIN_H

#include <stdbool.h>
#include <stdint.h>

#define LIN_MAX 8

struct lin {
	int n;		    /* terms, sorted by var, no zero coefficient */
	int var[LIN_MAX];   /* variable ids */
	int64_t k[LIN_MAX]; /* their coefficients */
	int64_t c;	    /* the constant */
	bool bad;	    /* overflowed or too many terms: no value */
};

struct lin lin_const(int64_t c);
struct lin lin_var(int var);
/* a + m * b */
struct lin lin_addmul(const struct lin *a, int64_t m, const struct lin *b);
struct lin lin_add(const struct lin *a, const struct lin *b);
struct lin lin_sub(const struct lin *a, const struct lin *b);
struct lin lin_scale(const struct lin *a, int64_t m);
struct lin lin_addc(const struct lin *a, int64_t c);
/* @a with variable @var replaced by @by. */
struct lin lin_subst(const struct lin *a, int var, const struct lin *by);
int64_t lin_coef(const struct lin *a, int var);
static inline bool lin_is_const(const struct lin *a)
{
	return !a->bad && a->n == 0;
}
bool lin_eq(const struct lin *a, const struct lin *b);
/* Same variable part (coefficients included), any constant. */
bool lin_same_vars(const struct lin *a, const struct lin *b);
/* A total order, for sorting and de-duplicating. */
int lin_cmp(const struct lin *a, const struct lin *b);
/*
 * For a constraint a >= 0 over integers: divides the coefficients by their
 * gcd and rounds the constant down, which keeps exactly the same integer
 * solutions and gives equal constraints one spelling.
 */
struct lin lin_tighten(const struct lin *a);
int64_t gcd64(int64_t a, int64_t b);

#endif
