/*
 * Bound expressions as text: the "bound" and "class" of a bounds profile
 * (Veles's and Loopus's spelling: "6 + 4 × max(0, (k + -1))", "O(n^1)"),
 * parsed so that `check` and `diff` can compare two of them and the
 * bounds benchmark can compare ours with those derived by hand.
 */
#ifndef ANALYZE_BOUND_EXPR_H
#define ANALYZE_BOUND_EXPR_H

#include <stdbool.h>

struct bexpr;

/* Parses @text: numbers, names, + - × * / ^, max, min, logK (log2,
 * log10, ...), ceil, floor, parentheses, and ∞. ERR_PARSE when it is none. */
int bexpr_parse(const char *text, struct bexpr **out);
void bexpr_free(struct bexpr *e);
bool bexpr_is_inf(const struct bexpr *e);
/* The value with each name's value from @value (logK(x) is the floor of
 * the logarithm of max(1, x)); infinity for ∞. */
double bexpr_eval(const struct bexpr *e, double (*value)(const char *name, void *arg), void *arg);
/* The names it uses, each once, in order of appearance; @out is valid
 * while @e lives. */
int bexpr_names(const struct bexpr *e, const char *const **out);
/* The value of bound @text at a large input (each name about 1000), where
 * two bounds of one class are compared; NaN when @text does not parse. */
double bexpr_at_probe(const char *text);

struct bclass {
	bool inf;
	int deg; /* n^deg */
	int log; /* log^log n */
};

/* "O(1)", "O(n^2)", "O(n)", "O(log n)", "O(n^1 log n)", "O(∞)"; false for
 * anything else. */
bool bclass_parse(const char *text, struct bclass *out);
int bclass_cmp(struct bclass a, struct bclass b);

#endif
