/* Shared by the front end's files: the parsed file and a function being built. */
#ifndef COLLECT_BOUNDS_FRONT_PRIV_H
#define COLLECT_BOUNDS_FRONT_PRIV_H

#include <stdbool.h>

#include "collect/bounds/clang_lazy.h"
#include "collect/bounds/ir.h"

/* A token of the main file: where it is and, for punctuation, its text. */
struct ftok {
	unsigned start, end; /* byte offsets */
	bool punct;
	char text[4];
};

struct front {
	const struct clang_api *cx;
	CXTranslationUnit tu;
	struct ftok *toks;
	int ntoks;
};

struct vmap {
	CXCursor decl;
	int var; /* -1: not an integer we track */
};

struct label {
	char *name;
	int node;
	int line, col;
};

/* The function being translated. */
struct fb {
	struct front *fr;
	struct ir_func *f;
	int cur; /* where the next node attaches; -1 after return, break, goto */
	struct vmap *vars;
	int nvars;
	size_t vars_cap;
	CXCursor *addr; /* declarations whose address is taken */
	int naddr;
	size_t addr_cap;
	int *brk, *cont; /* targets of break and continue, innermost last */
	int nbrk, ncont;
	size_t jump_cap;
	struct label *labels;
	int nlabels;
	size_t labels_cap;
	struct sw *sw; /* the innermost switch */
	int ntemps;
};

/* The switch being translated: its value and its dispatch node. */
struct sw {
	struct ir_expr value;
	int dispatch;
	bool has_default;
	struct sw *outer;
};

/* ---- front.c ---- */
/* The children of @c, in order; caller frees. */
int front_children(const struct front *fr, CXCursor c, CXCursor **out);
/* Byte offset and line of a cursor's start or end in the main file. */
unsigned front_start(const struct front *fr, CXCursor c, int *line, int *col);
unsigned front_end(const struct front *fr, CXCursor c, int *line);
/* The first token starting at or after @offset, or -1. */
int front_tok_at(const struct front *fr, unsigned offset);
/* The operator of a binary or unary operator cursor ("+=", "++") in @buf,
 * or NULL when the source does not show it (inside a macro). */
const char *front_binop(struct front *fr, CXCursor op, CXCursor lhs, CXCursor rhs, char buf[4]);
const char *front_unop(struct front *fr, CXCursor op, CXCursor arg, bool *prefix, char buf[4]);
/* An integer constant the compiler can compute from @c. */
bool front_eval_int(const struct front *fr, CXCursor c, int64_t *out);
/* The range of an integer type; false for other types (bool included). */
bool front_int_range(const struct front *fr, CXType t, int64_t *lo, int64_t *hi, bool *is_unsigned,
		     int *bits);
/* The variable a declaration is, created on first use; -1 when untracked. */
int fb_var(struct fb *b, CXCursor decl);
/* A fresh tracked temporary of integer type @t. */
int fb_temp(struct fb *b, CXType t);
bool fb_addr_taken(const struct fb *b, CXCursor decl);

/* ---- front_expr.c ---- */
/* Appends a node after b->cur and makes it current. */
int fb_emit(struct fb *b, enum ir_op op, int line);
/* The value of @c as an rvalue, its side effects emitted first. */
struct ir_expr fb_rvalue(struct fb *b, CXCursor c);
/* The same when the value is not used (an expression statement). */
void fb_effects(struct fb *b, CXCursor c);
/* Emits the test of @c: *t and *f are the nodes reached when it holds and
 * when it does not. */
void fb_cond(struct fb *b, CXCursor c, int *t, int *f);
/* @c with parentheses and implicit conversions that change nothing removed. */
CXCursor fb_strip(const struct fb *b, CXCursor c);
int fb_line(const struct fb *b, CXCursor c);

/* ---- front_stmt.c ---- */
void fb_stmt(struct fb *b, CXCursor c);
void fb_find_addr_taken(struct fb *b, CXCursor c);

#endif
