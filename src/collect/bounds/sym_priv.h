/*
 * The representation of bound expressions that sym.c builds and
 * sym_print.c and sym_class.c read: polynomials over interned atoms.
 * Not for use outside src/collect/bounds/sym*.c.
 */
#ifndef COLLECT_BOUNDS_SYM_PRIV_H
#define COLLECT_BOUNDS_SYM_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/bounds/lin.h"
#include "collect/bounds/sym.h"

#define MONO_MAX 6

enum atom_kind { AT_SYM, AT_MAX0, AT_LOG, AT_CEIL, AT_MAX };

struct atom {
	enum atom_kind kind;
	int sym;		  /* AT_SYM */
	struct lin l;		  /* AT_MAX0: max(0, l) */
	int64_t k;		  /* AT_LOG: the base; AT_CEIL: the divisor */
	const struct poly *p, *q; /* AT_LOG, AT_CEIL: p; AT_MAX: max(p, q) */
};

struct mono {
	int64_t c;
	int na;
	int a[MONO_MAX]; /* atom ids, ascending, repeated for powers */
};

struct poly {
	bool inf;
	int n;
	const struct mono *m; /* canonical: sorted, merged, no zero coefficient */
};

struct sym_ctx {
	char **names;
	int nnames;
	struct atom *atoms;
	int natoms;
	size_t atoms_cap;
	void **mem;
	int nmem;
	size_t mem_cap;
	const struct poly *inf, *zero;
};

/* The linear form of @a when it is one over symbols. */
bool sym_as_lin(const struct sym_ctx *x, const struct poly *a, struct lin *out);

#endif
