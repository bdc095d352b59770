/*
 * The small intermediate form the bounds analysis works on: per C
 * function, its integer variables and a control-flow graph of single
 * actions (assume a linear constraint, assign a value, forget a value),
 * plus the loops of the source. src/collect/bounds/front*.c builds it from
 * libclang's syntax tree; absprog.c and bound.c analyse it.
 */
#ifndef COLLECT_BOUNDS_IR_H
#define COLLECT_BOUNDS_IR_H

#include <stdbool.h>
#include <stdint.h>

#include "collect/bounds/lin.h"

enum ir_vkind { VK_INT, VK_PTR, VK_OTHER };

struct ir_var {
	char *name;
	enum ir_vkind kind;
	bool is_unsigned;
	int bits;
	bool is_param, is_global, is_temp;
	bool tracked;	/* an integer whose every write we see */
	int64_t lo, hi; /* the type's range, clipped to int64 */
};

/*
 * A value: l + sum of m * trunc(e / k) (C's division, toward zero), or
 * unknown. During the path analysis the forms are over the values the
 * variables had at the path's start, and @higher / @lower say that the
 * real value may lie above / below the form (an unsigned or narrow value
 * that may have wrapped around).
 */
#define VAL_NDIV 2
struct vdiv {
	struct lin e;
	int64_t k;
	int64_t m;
};
struct val {
	bool unknown;
	struct lin l;
	int ndiv;
	struct vdiv div[VAL_NDIV];
	bool higher, lower;
};

/*
 * A conversion the front end could not prove harmless: the value of @e
 * (a subexpression) must lie in [lo, hi] for the expression's value to
 * equal its form; outside, it wraps, moving the whole value up or down by
 * the sign @sign of that subexpression in it. @hard: outside the range
 * the value is unknown (a shift of a negative number).
 */
#define IR_NOB 4
struct oblig {
	struct val e;
	int64_t lo, hi;
	int sign;
	bool hard;
};
struct ir_expr {
	struct val v;
	int nob;
	struct oblig ob[IR_NOB];
};

enum ir_op {
	OP_NOP,	    /* a join, a label, a branch point */
	OP_ASSUME,  /* e >= 0 (or e == 0 when eq) holds from here */
	OP_ASSIGN,  /* var := e */
	OP_HAVOC,   /* var := anything */
	OP_CLOBBER, /* a call or a store through a pointer: globals change */
	OP_EXIT,    /* the function's end */
};

struct ir_node {
	enum ir_op op;
	bool eq;
	int var;
	struct ir_expr e;
	int line;
	int *succ;
	int nsucc;
	size_t succ_cap;
	int loop; /* the source loop whose header this is, or -1 */
};

enum ir_loop_kind { LOOP_FOR, LOOP_WHILE, LOOP_DO, LOOP_GOTO };

/* A loop as the source spells it: where it starts and ends. */
struct ir_loop {
	enum ir_loop_kind kind;
	int line, col; /* the keyword, or the label of a goto loop */
	int end_line;  /* the last line of the statement, or the goto's */
	int header;    /* its node */
};

struct ir_func {
	char *name;
	int line, col; /* the name in the definition, from 1 */
	struct ir_var *vars;
	int nvars;
	size_t vars_cap;
	struct ir_node *nodes;
	int nnodes;
	size_t nodes_cap;
	int entry, exit;
	struct ir_loop *loops;
	int nloops;
	size_t loops_cap;
	/* Set when the function does something we cannot model at all
	 * (computed goto, setjmp, asm): every loop is unbounded, for this. */
	char *opaque;
};

struct ir_func *ir_func_new(const char *name);
void ir_func_free(struct ir_func *f);
int ir_var_add(struct ir_func *f, const struct ir_var *v);
int ir_node_add(struct ir_func *f, enum ir_op op, int line);
void ir_edge(struct ir_func *f, int from, int to);
int ir_loop_add(struct ir_func *f, const struct ir_loop *l);
/* Marks the function as beyond the analysis, keeping the first reason. */
void ir_set_opaque(struct ir_func *f, const char *why);

/* Values. */
struct val val_lin(const struct lin *l);
struct val val_const(int64_t c);
struct val val_unknown(void);
/* a + m * b; unknown when the result does not fit the form. */
struct val val_addmul(const struct val *a, int64_t m, const struct val *b);
/* trunc(a / k) for k >= 2, when @a is linear; unknown otherwise. */
struct val val_div(const struct val *a, int64_t k);
bool val_is_lin(const struct val *a); /* known, no division, no wrap flags */
bool val_eq(const struct val *a, const struct val *b);

/* Expressions with their obligations (the front end's values). */
struct ir_expr expr_val(const struct val *v);
struct ir_expr expr_unknown(void);
struct ir_expr expr_addmul(const struct ir_expr *a, int64_t m, const struct ir_expr *b);
struct ir_expr expr_div(const struct ir_expr *a, int64_t k);
/* Adds the obligation that @a lies in [lo, hi], as a conversion needs. */
void expr_require(struct ir_expr *a, int64_t lo, int64_t hi, bool hard);

#endif
