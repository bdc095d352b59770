/* Shared by the bound analysis's files (bound.c says how it works). */
#ifndef COLLECT_BOUNDS_BOUND_PRIV_H
#define COLLECT_BOUNDS_BOUND_PRIV_H

#include <stdbool.h>

#include "collect/bounds/absprog.h"
#include "collect/bounds/sym.h"

struct buf;

#define MAX_NORMS 64
/* Steps of the recursion before the analysis gives up on a function. */
#define STEP_BUDGET 300000

enum dc_kind { DC_SAME, DC_DEC, DC_INC, DC_RESET, DC_UNKNOWN };

struct dc {
	enum dc_kind kind;
	int64_t c;	/* DEC: the decrease; INC: the increase; RESET: a's constant */
	struct lin a;	/* RESET: v' <= a + c */
	bool guarded;	/* v >= 1 where the transition starts */
	int64_t hk, hc; /* v' <= (v + hc) / hk, guarded; hk 0: no such halving */
	bool has_delta; /* v' <= v + delta (not from the entry) */
	int64_t delta;
	bool exact; /* v' == v + delta */
};

/*
 * M_TAINTED: computed while a quantity it needed was running, and so
 * perhaps looser than it could be (it is sound); kept for one pass, then
 * M_STALE: computed again, and the better of the two kept.
 */
enum memo { M_NONE, M_RUNNING, M_DONE, M_TAINTED, M_STALE };

struct bctx {
	const struct absprog *a;
	const struct ir_func *f;
	struct sym_ctx *sx;
	struct lin norm[MAX_NORMS];
	int nnorm;
	struct dc *dc[MAX_NORMS];
	const struct poly *nb[MAX_NORMS], *vb[MAX_NORMS];
	char nb_st[MAX_NORMS], vb_st[MAX_NORMS];
	char *why[MAX_NORMS]; /* why a norm's bound is infinite */
	const struct poly **bl, **el;
	char *bl_st, *el_st;
	bool *cyclic; /* per cut point: on a cycle */
	bool *within; /* [cut * nloops + loop]: the cut point is in the loop */
	/* Scratch for the graph walks (none of them runs inside another). */
	bool *seen, *skip, *target;
	int *stack;
	long steps;
	int hits; /* times a quantity needed itself: a result then is not kept */
};

int cut_loop(const struct bctx *b, int cut);
bool cut_within(const struct bctx *b, int cut, int loop);
bool reaches(const struct bctx *b, int from, const bool *targets, const bool *skip);
/* The graph facts the walks need, and their scratch space. */
void graph_setup(struct bctx *b);
bool upper_lin(const struct bctx *b, const struct val *v, const struct facts *when,
	       struct lin *out);
int norm_index(struct bctx *b, const struct lin *v);
void collect_norms(struct bctx *b);
void lin_text(const struct ir_func *f, const struct lin *l, struct buf *out);
/* Records why norm @norm has no bound (once): "n - i WHAT". */
void set_why(struct bctx *b, int norm, const char *what);
const struct poly *better(struct bctx *b, const struct poly *x, const struct poly *y);
bool over_budget(struct bctx *b);
/* Keeps @r in a memo slot (state @st, value @slot) after a computation
 * that began when b->hits was @hits, or @old (a stale value) when better;
 * returns what it kept. */
const struct poly *memo_keep(struct bctx *b, char *st, const struct poly **slot,
			     const struct poly *r, int hits, const struct poly *old);
/* Forgets the tainted results, for a second pass. */
void memo_untaint(struct bctx *b);
const struct poly *reset_value(struct bctx *b, int t, const struct dc *d);
const struct poly *norm_bound(struct bctx *b, int v);
const struct poly *value_bound(struct bctx *b, int v);
bool cycles_marked(const struct bctx *b, int loop, const bool *mark);
const struct poly *bound_set(struct bctx *b, const int *s, int n);

/* bound_series.c: resets whose values step through a range, summed. */
const struct poly *series(struct bctx *b, int norm, const int *group, int n);

/* bound_loop.c: a loop's back edges and entries. */
const struct poly *back_edges(struct bctx *b, int loop);
const struct poly *entries(struct bctx *b, int loop);
/* bound_log.c: counters halved, or multiplied up to a limit, per entry. */
const struct poly *log_bound(struct bctx *b, int loop);

#endif
