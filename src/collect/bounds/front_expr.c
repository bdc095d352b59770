/*
 * Expressions and conditions into the intermediate form: integer values as
 * linear forms (with the conversions C applies as obligations, ir.h),
 * side effects as nodes emitted before the value is used, and conditions
 * as branches with the linear constraints each side may assume. What is
 * not an integer we follow (memory, floating point, a call's result) is
 * unknown, which is always safe.
 */
#include <stdlib.h>
#include <string.h>

#include "collect/bounds/front_priv.h"
#include "util/common.h"

static struct ir_expr rvalue(struct fb *b, CXCursor c, bool want);

int fb_line(const struct fb *b, CXCursor c)
{
	int line = 0;

	front_start(b->fr, c, &line, NULL);
	return line;
}

int fb_emit(struct fb *b, enum ir_op op, int line)
{
	int n = ir_node_add(b->f, op, line);

	if (b->cur >= 0)
		ir_edge(b->f, b->cur, n);
	b->cur = n;
	return n;
}

static int join(struct fb *b, int x, int y)
{
	int n;

	if (x < 0)
		return y;
	if (y < 0 || x == y)
		return x;
	n = ir_node_add(b->f, OP_NOP, b->f->nodes[x].line);
	ir_edge(b->f, x, n);
	ir_edge(b->f, y, n);
	return n;
}

static enum CXCursorKind kind(const struct fb *b, CXCursor c)
{
	return b->fr->cx->clang_getCursorKind(c);
}

/* The last child that is an expression (a cast's operand, not its type). */
static bool expr_child(const struct fb *b, CXCursor c, CXCursor *out)
{
	CXCursor *kids;
	int n = front_children(b->fr, c, &kids);
	bool found = false;

	for (int i = n - 1; i >= 0 && !found; i--) {
		if (b->fr->cx->clang_isExpression(kind(b, kids[i]))) {
			*out = kids[i];
			found = true;
		}
	}
	free(kids);
	return found;
}

struct range {
	bool is_int;
	int64_t lo, hi;
	bool is_unsigned;
	int bits;
};

static struct range type_range(const struct fb *b, CXType t)
{
	struct range r;

	memset(&r, 0, sizeof(r));
	r.is_int = front_int_range(b->fr, t, &r.lo, &r.hi, &r.is_unsigned, &r.bits);
	return r;
}

static struct range cursor_range(const struct fb *b, CXCursor c)
{
	return type_range(b, b->fr->cx->clang_getCursorType(c));
}

CXCursor fb_strip(const struct fb *b, CXCursor c)
{
	CXCursor in;

	for (;;) {
		enum CXCursorKind k = kind(b, c);
		struct range outer, inner;

		if (k != CXCursor_ParenExpr && k != CXCursor_UnexposedExpr)
			return c;
		if (!expr_child(b, c, &in))
			return c;
		if (k == CXCursor_UnexposedExpr) {
			outer = cursor_range(b, c);
			inner = cursor_range(b, in);
			if (outer.is_int != inner.is_int ||
			    (outer.is_int && (outer.lo != inner.lo || outer.hi != inner.hi)))
				return c;
		}
		c = in;
	}
}

/* The tracked variable @c names (after stripping), or -1. */
static int lvalue_var(struct fb *b, CXCursor c, bool *is_var)
{
	const struct clang_api *cx = b->fr->cx;

	c = fb_strip(b, c);
	*is_var = kind(b, c) == CXCursor_DeclRefExpr;
	if (!*is_var)
		return -1;
	return fb_var(b, cx->clang_getCursorReferenced(c));
}

/*
 * A store to memory: through a pointer it may change a global we track,
 * into a local array or struct it cannot.
 */
static bool store_may_alias(struct fb *b, CXCursor lhs)
{
	const struct clang_api *cx = b->fr->cx;

	for (;;) {
		enum CXCursorKind k;
		CXCursor *kids, base;
		int n;

		lhs = fb_strip(b, lhs);
		k = kind(b, lhs);
		if (k == CXCursor_DeclRefExpr) {
			CXCursor d = cx->clang_getCursorReferenced(lhs);
			CXType t = cx->clang_getCanonicalType(cx->clang_getCursorType(d));
			enum CXCursorKind pk = kind(b, cx->clang_getCursorSemanticParent(d));

			return t.kind == CXType_Pointer || pk == CXCursor_TranslationUnit ||
			       cx->clang_Cursor_getStorageClass(d) == CX_SC_Static;
		}
		if (k != CXCursor_MemberRefExpr && k != CXCursor_ArraySubscriptExpr)
			return true;
		n = front_children(b->fr, lhs, &kids);
		if (n == 0) {
			free(kids);
			return true;
		}
		base = kids[0];
		free(kids);
		/* a->f and p[i] go through a pointer; s.f and a[i] on an array do not. */
		if (cx->clang_getCanonicalType(cx->clang_getCursorType(fb_strip(b, base))).kind ==
		    CXType_Pointer)
			return true;
		lhs = base;
	}
}

/* Evaluates the subexpressions of @c for their side effects. */
static void effects_of_children(struct fb *b, CXCursor c)
{
	CXCursor *kids;
	int n = front_children(b->fr, c, &kids);

	for (int i = 0; i < n; i++) {
		enum CXCursorKind k = kind(b, kids[i]);

		if (b->fr->cx->clang_isExpression(k))
			rvalue(b, kids[i], false);
		else if (k == CXCursor_CompoundStmt)
			fb_stmt(b, kids[i]);
	}
	free(kids);
}

/* var := e; any conversion to var's type is already in @e (the syntax tree
 * spells each one as an implicit cast). */
static void assign(struct fb *b, int var, struct ir_expr e, int line)
{
	int n = fb_emit(b, OP_ASSIGN, line);

	b->f->nodes[n].var = var;
	b->f->nodes[n].e = e;
}

/* A value computed in a wider type and stored in @var: an unsigned or a
 * narrow variable wraps (signed int and long overflow is undefined). */
static void require_var_range(const struct fb *b, int var, struct ir_expr *e)
{
	const struct ir_var *v = &b->f->vars[var];

	if (v->is_unsigned || v->bits < 32)
		expr_require(e, v->lo, v->hi, false);
}

static void havoc(struct fb *b, int var, int line)
{
	int n = fb_emit(b, OP_HAVOC, line);

	b->f->nodes[n].var = var;
}

static struct ir_expr var_expr(int var)
{
	struct lin l = lin_var(var);
	struct val v = val_lin(&l);

	return expr_val(&v);
}

static struct ir_expr const_expr(int64_t c)
{
	struct val v = val_const(c);

	return expr_val(&v);
}

static bool is_const(const struct ir_expr *e, int64_t *c)
{
	if (!val_is_lin(&e->v) || !lin_is_const(&e->v.l) || e->nob)
		return false;
	*c = e->v.l.c;
	return true;
}

/* l OP r for an arithmetic operator; @res: the result's type. */
static struct ir_expr arith(const char *op, struct ir_expr l, struct ir_expr r, struct range res)
{
	struct ir_expr out;
	int64_t c;

	if (!res.is_int)
		return expr_unknown();
	if (strcmp(op, "+") == 0) {
		out = expr_addmul(&l, 1, &r);
	} else if (strcmp(op, "-") == 0) {
		out = expr_addmul(&l, -1, &r);
	} else if (strcmp(op, "*") == 0) {
		struct ir_expr z = const_expr(0);

		if (is_const(&r, &c))
			out = expr_addmul(&z, c, &l);
		else if (is_const(&l, &c))
			out = expr_addmul(&z, c, &r);
		else
			return expr_unknown();
	} else if (strcmp(op, "/") == 0 && is_const(&r, &c) && c != 0) {
		struct ir_expr z = const_expr(0);

		out = expr_div(&l, c > 0 ? c : -c);
		if (c < 0)
			out = expr_addmul(&z, -1, &out);
	} else if (strcmp(op, "<<") == 0 && is_const(&r, &c) && c >= 0 && c < 62) {
		struct ir_expr z = const_expr(0);

		out = expr_addmul(&z, (int64_t)1 << c, &l);
	} else if (strcmp(op, ">>") == 0 && is_const(&r, &c) && c >= 0 && c < 62) {
		/* A shift is a division only of a number that is not negative. */
		out = l;
		expr_require(&out, 0, INT64_MAX, true);
		out = expr_div(&out, (int64_t)1 << c);
	} else {
		return expr_unknown();
	}
	if (res.is_unsigned)
		expr_require(&out, res.lo, res.hi, false);
	return out;
}

static bool is_comparison(const char *op)
{
	static const char *const ops[] = {"<", "<=", ">", ">=", "==", "!="};

	for (size_t i = 0; op && i < ARRAY_SIZE(ops); i++)
		if (strcmp(op, ops[i]) == 0)
			return true;
	return false;
}

/* A comparison or logical operator as a value: 1 or 0 through a temporary. */
static struct ir_expr truth_value(struct fb *b, CXCursor c)
{
	int tmp = fb_temp(b, b->fr->cx->clang_getCursorType(c)), t, f, te, line = fb_line(b, c);

	fb_cond(b, c, &t, &f);
	if (tmp < 0) {
		b->cur = join(b, t, f);
		return expr_unknown();
	}
	b->cur = t;
	assign(b, tmp, const_expr(1), line);
	te = b->cur;
	b->cur = f;
	assign(b, tmp, const_expr(0), line);
	b->cur = join(b, te, b->cur);
	return var_expr(tmp);
}

static struct ir_expr binary(struct fb *b, CXCursor c, bool want)
{
	char opbuf[4];
	CXCursor *kids;
	int n = front_children(b->fr, c, &kids), var;
	const char *op = n == 2 ? front_binop(b->fr, c, kids[0], kids[1], opbuf) : NULL;
	struct ir_expr l, r, out = expr_unknown();
	bool is_var;

	if (n != 2) {
		free(kids);
		effects_of_children(b, c);
		return expr_unknown();
	}
	if (op && (strcmp(op, "&&") == 0 || strcmp(op, "||") == 0 || is_comparison(op))) {
		free(kids);
		return want ? truth_value(b, c) : (truth_value(b, c), expr_unknown());
	}
	if (op && strcmp(op, ",") == 0) {
		rvalue(b, kids[0], false);
		out = rvalue(b, kids[1], want);
	} else if (op && strcmp(op, "=") == 0) {
		var = lvalue_var(b, kids[0], &is_var);
		if (!is_var)
			effects_of_children(b, fb_strip(b, kids[0]));
		r = rvalue(b, kids[1], true);
		if (var >= 0) {
			assign(b, var, r, fb_line(b, c));
			out = var_expr(var);
		} else if (!is_var && store_may_alias(b, kids[0])) {
			fb_emit(b, OP_CLOBBER, fb_line(b, c));
		}
	} else if (op) {
		l = rvalue(b, kids[0], true);
		r = rvalue(b, kids[1], true);
		out = arith(op, l, r, cursor_range(b, c));
	} else {
		/* Written through a macro: we cannot tell which operator it is,
		 * so it may have been an assignment. */
		var = lvalue_var(b, kids[0], &is_var);
		rvalue(b, kids[0], false);
		rvalue(b, kids[1], false);
		if (var >= 0)
			havoc(b, var, fb_line(b, c));
		else if (!is_var)
			fb_emit(b, OP_CLOBBER, fb_line(b, c));
	}
	free(kids);
	return out;
}

static struct ir_expr compound(struct fb *b, CXCursor c)
{
	char opbuf[4];
	CXCursor *kids;
	int n = front_children(b->fr, c, &kids), var = -1;
	const char *op = n == 2 ? front_binop(b->fr, c, kids[0], kids[1], opbuf) : NULL;
	struct ir_expr r, out = expr_unknown();
	char arith_op[4];
	bool is_var = false;

	if (n == 2)
		var = lvalue_var(b, kids[0], &is_var);
	if (n == 2 && !is_var)
		effects_of_children(b, fb_strip(b, kids[0]));
	r = n == 2 ? rvalue(b, kids[1], true) : expr_unknown();
	if (var >= 0 && op && strlen(op) >= 2 && op[strlen(op) - 1] == '=') {
		/* x op= e is x = x op e, computed in x's type (or int, for a
		 * narrow x: its range is the assignment's obligation). */
		struct range res = type_range(b, b->fr->cx->clang_getCursorType(kids[0]));

		snprintf(arith_op, sizeof(arith_op), "%.*s", (int)strlen(op) - 1, op);
		if (res.is_int && res.bits < 32) {
			res.is_unsigned = false;
			res.bits = 32;
		}
		out = arith(arith_op, var_expr(var), r, res);
		require_var_range(b, var, &out);
		assign(b, var, out, fb_line(b, c));
		out = var_expr(var);
	} else if (var >= 0) {
		havoc(b, var, fb_line(b, c));
	} else if (!is_var && n == 2 && store_may_alias(b, kids[0])) {
		fb_emit(b, OP_CLOBBER, fb_line(b, c));
	}
	free(kids);
	return out;
}

static struct ir_expr incdec(struct fb *b, CXCursor c, CXCursor arg, bool inc, bool prefix,
			     bool want)
{
	bool is_var;
	int var = lvalue_var(b, arg, &is_var), tmp = -1, line = fb_line(b, c);
	struct ir_expr one = const_expr(1), x;

	if (var < 0) {
		if (!is_var) {
			effects_of_children(b, fb_strip(b, arg));
			if (store_may_alias(b, arg))
				fb_emit(b, OP_CLOBBER, line);
		}
		return expr_unknown();
	}
	if (!prefix && want) {
		tmp = fb_temp(b, b->fr->cx->clang_getCursorType(arg));
		if (tmp >= 0)
			assign(b, tmp, var_expr(var), line);
	}
	x = var_expr(var);
	x = expr_addmul(&x, inc ? 1 : -1, &one);
	require_var_range(b, var, &x);
	assign(b, var, x, line);
	if (prefix)
		return var_expr(var);
	return tmp >= 0 ? var_expr(tmp) : expr_unknown();
}

static struct ir_expr unary(struct fb *b, CXCursor c, bool want)
{
	char opbuf[4];
	CXCursor *kids;
	int n = front_children(b->fr, c, &kids);
	bool prefix;
	const char *op;
	struct ir_expr a, z = const_expr(0), out = expr_unknown();
	struct range res = cursor_range(b, c);
	CXCursor arg;

	if (n != 1) {
		free(kids);
		effects_of_children(b, c);
		return expr_unknown();
	}
	arg = kids[0];
	free(kids);
	op = front_unop(b->fr, c, arg, &prefix, opbuf);
	if (!op) {
		bool is_var;
		int var = lvalue_var(b, arg, &is_var);

		rvalue(b, arg, false);
		if (var >= 0)
			havoc(b, var, fb_line(b, c));
		return expr_unknown();
	}
	if (strcmp(op, "++") == 0 || strcmp(op, "--") == 0)
		return incdec(b, c, arg, op[0] == '+', prefix, want);
	if (strcmp(op, "!") == 0)
		return want ? truth_value(b, c) : (truth_value(b, c), expr_unknown());
	a = rvalue(b, arg, true);
	if (!res.is_int)
		return expr_unknown();
	if (strcmp(op, "-") == 0) {
		out = expr_addmul(&z, -1, &a);
	} else if (strcmp(op, "+") == 0) {
		out = a;
	} else if (strcmp(op, "~") == 0) {
		struct ir_expr m1 = const_expr(-1);

		out = expr_addmul(&m1, -1, &a);
	} else {
		return expr_unknown(); /* &x, *p */
	}
	if (res.is_unsigned)
		expr_require(&out, res.lo, res.hi, false);
	return out;
}

static struct ir_expr ternary(struct fb *b, CXCursor c)
{
	CXCursor *kids;
	int n = front_children(b->fr, c, &kids), t, f, tmp, te, line = fb_line(b, c);
	struct ir_expr v;

	if (n != 3) {
		free(kids);
		effects_of_children(b, c);
		return expr_unknown();
	}
	tmp = fb_temp(b, b->fr->cx->clang_getCursorType(c));
	fb_cond(b, kids[0], &t, &f);
	b->cur = t;
	v = rvalue(b, kids[1], true);
	if (tmp >= 0)
		assign(b, tmp, v, line);
	te = b->cur;
	b->cur = f;
	v = rvalue(b, kids[2], true);
	if (tmp >= 0)
		assign(b, tmp, v, line);
	b->cur = join(b, te, b->cur);
	free(kids);
	return tmp >= 0 ? var_expr(tmp) : expr_unknown();
}

static bool name_in(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, list[i]) == 0)
			return true;
	return false;
}

/* Whether an argument lets the callee write memory: a pointer, not to const. */
static bool writable_pointer(const struct fb *b, CXCursor arg)
{
	const struct clang_api *cx = b->fr->cx;
	CXType t = cx->clang_getCanonicalType(cx->clang_getCursorType(arg));

	if (t.kind != CXType_Pointer)
		return t.kind == CXType_BlockPointer || t.kind == CXType_Record;
	return !cx->clang_isConstQualifiedType(cx->clang_getPointeeType(t));
}

static struct ir_expr call(struct fb *b, CXCursor c)
{
	static const char *const noreturn[] = {
		"exit",	   "_exit",	 "_Exit", "abort", "quick_exit",  "__assert_fail",
		"longjmp", "siglongjmp", "err",	  "errx",  "pthread_exit"};
	static const char *const setjmp[] = {"setjmp", "_setjmp", "sigsetjmp", "__sigsetjmp"};
	const struct clang_api *cx = b->fr->cx;
	CXCursor callee = cx->clang_getCursorReferenced(c), *kids;
	int n = front_children(b->fr, c, &kids), line = fb_line(b, c);
	bool known = kind(b, callee) == CXCursor_FunctionDecl, writes = !known;
	CXString s;
	char *name;

	for (int i = 0; i < n; i++) {
		if (!cx->clang_isExpression(kind(b, kids[i])))
			continue;
		rvalue(b, kids[i], false);
		if (i > 0 && writable_pointer(b, kids[i]))
			writes = true;
	}
	free(kids);
	s = cx->clang_getCursorSpelling(callee);
	name = xstrdup(known ? cx->clang_getCString(s) : "");
	cx->clang_disposeString(s);
	/* A library function that gets no pointer to write through cannot
	 * change our variables; anything else may change the globals. */
	if (!known || !cx->clang_Location_isInSystemHeader(cx->clang_getCursorLocation(callee)))
		writes = true;
	if (writes)
		fb_emit(b, OP_CLOBBER, line);
	if (name_in(name, setjmp, ARRAY_SIZE(setjmp))) {
		char *why = xasprintf("%s at line %d", name, line);

		ir_set_opaque(b->f, why);
		free(why);
	}
	if (name_in(name, noreturn, ARRAY_SIZE(noreturn)) && b->cur >= 0) {
		ir_edge(b->f, b->cur, b->f->exit);
		b->cur = ir_node_add(b->f, OP_NOP, line); /* unreachable from here */
	}
	free(name);
	return expr_unknown();
}

static struct ir_expr conversion(struct fb *b, CXCursor c, bool want)
{
	CXCursor in;
	struct range to = cursor_range(b, c), from;
	struct ir_expr v;

	if (!expr_child(b, c, &in)) {
		int64_t k;

		return front_eval_int(b->fr, c, &k) ? const_expr(k) : expr_unknown();
	}
	v = rvalue(b, in, want || to.is_int);
	from = cursor_range(b, in);
	if (!to.is_int || !from.is_int)
		return expr_unknown();
	if (from.lo < to.lo || from.hi > to.hi)
		expr_require(&v, to.lo, to.hi, false);
	return v;
}

static struct ir_expr declref(struct fb *b, CXCursor c)
{
	CXCursor d = b->fr->cx->clang_getCursorReferenced(c);
	int64_t k;
	int var;

	if (kind(b, d) == CXCursor_EnumConstantDecl)
		return front_eval_int(b->fr, c, &k) ? const_expr(k) : expr_unknown();
	var = fb_var(b, d);
	return var >= 0 ? var_expr(var) : expr_unknown();
}

static struct ir_expr rvalue(struct fb *b, CXCursor c, bool want)
{
	CXCursor in;
	int64_t k;

	switch (kind(b, c)) {
	case CXCursor_IntegerLiteral:
	case CXCursor_CharacterLiteral:
	case CXCursor_UnaryExpr: /* sizeof, _Alignof */
		return front_eval_int(b->fr, c, &k) ? const_expr(k) : expr_unknown();
	case CXCursor_ParenExpr:
		return expr_child(b, c, &in) ? rvalue(b, in, want) : expr_unknown();
	case CXCursor_UnexposedExpr:
	case CXCursor_CStyleCastExpr:
		return conversion(b, c, want);
	case CXCursor_DeclRefExpr:
		return declref(b, c);
	case CXCursor_BinaryOperator:
		return binary(b, c, want);
	case CXCursor_CompoundAssignOperator:
		return compound(b, c);
	case CXCursor_UnaryOperator:
		return unary(b, c, want);
	case CXCursor_ConditionalOperator:
		return ternary(b, c);
	case CXCursor_CallExpr:
		return call(b, c);
	default:
		effects_of_children(b, c);
		return expr_unknown();
	}
}

struct ir_expr fb_rvalue(struct fb *b, CXCursor c)
{
	return rvalue(b, c, true);
}

void fb_effects(struct fb *b, CXCursor c)
{
	rvalue(b, c, false);
}

/* ---- conditions ---- */

/* Two branches from b->cur: one assuming @te, one assuming @fe; a NULL
 * side, or an unknown value, assumes nothing. @eq: the constraint is == 0. */
static void branch(struct fb *b, int line, const struct ir_expr *te, bool teq,
		   const struct ir_expr *fe, bool feq, int *t, int *f)
{
	int at = b->cur;

	*t = ir_node_add(b->f, te && !te->v.unknown ? OP_ASSUME : OP_NOP, line);
	*f = ir_node_add(b->f, fe && !fe->v.unknown ? OP_ASSUME : OP_NOP, line);
	if (te && !te->v.unknown) {
		b->f->nodes[*t].e = *te;
		b->f->nodes[*t].eq = teq;
	}
	if (fe && !fe->v.unknown) {
		b->f->nodes[*f].e = *fe;
		b->f->nodes[*f].eq = feq;
	}
	if (at >= 0) {
		ir_edge(b->f, at, *t);
		ir_edge(b->f, at, *f);
	}
}

static void compare(struct fb *b, CXCursor c, const char *op, CXCursor lc, CXCursor rc, int *t,
		    int *f)
{
	struct ir_expr l = rvalue(b, lc, true), r = rvalue(b, rc, true), one = const_expr(1);
	struct ir_expr lt, ge, eq; /* l < r, l >= r, l == r as e >= 0 / e == 0 */
	int line = fb_line(b, c);
	bool swap = op[0] == '>';

	if (swap) {
		struct ir_expr tmp = l;

		l = r;
		r = tmp;
	}
	/* Now l < r or l <= r. */
	lt = expr_addmul(&r, -1, &l);
	ge = expr_addmul(&l, -1, &r);
	eq = ge;
	if (strcmp(op, "==") == 0) {
		branch(b, line, &eq, true, NULL, false, t, f);
	} else if (strcmp(op, "!=") == 0) {
		/* An unsigned value other than 0 is at least 1. */
		int64_t k;
		bool unsig = cursor_range(b, lc).is_unsigned;
		struct ir_expr pos = expr_addmul(&l, -1, &one), neg = expr_addmul(&r, -1, &one);

		if (unsig && is_const(&r, &k) && k == 0)
			branch(b, line, &pos, false, &eq, true, t, f);
		else if (unsig && is_const(&l, &k) && k == 0)
			branch(b, line, &neg, false, &eq, true, t, f);
		else
			branch(b, line, NULL, false, &eq, true, t, f);
	} else if (op[1] == '=') { /* l <= r: r - l >= 0, else l - r - 1 >= 0 */
		ge = expr_addmul(&ge, -1, &one);
		branch(b, line, &lt, false, &ge, false, t, f);
	} else { /* l < r: r - l - 1 >= 0, else l - r >= 0 */
		lt = expr_addmul(&lt, -1, &one);
		branch(b, line, &lt, false, &ge, false, t, f);
	}
}

void fb_cond(struct fb *b, CXCursor c, int *t, int *f)
{
	char opbuf[4];
	CXCursor *kids;
	int n, t1, f1, line = fb_line(b, c);
	const char *op;
	struct ir_expr v, one = const_expr(1);

	c = fb_strip(b, c);
	n = front_children(b->fr, c, &kids);
	if (kind(b, c) == CXCursor_BinaryOperator && n == 2 &&
	    (op = front_binop(b->fr, c, kids[0], kids[1], opbuf))) {
		if (strcmp(op, "&&") == 0 || strcmp(op, "||") == 0) {
			bool and = op[0] == '&';
			int t2, f2;

			fb_cond(b, kids[0], &t1, &f1);
			b->cur = and? t1 : f1;
			fb_cond(b, kids[1], &t2, &f2);
			*t = and? t2 : join(b, t1, t2);
			*f = and? join(b, f1, f2) : f2;
			free(kids);
			return;
		}
		if (is_comparison(op)) {
			compare(b, c, op, kids[0], kids[1], t, f);
			free(kids);
			return;
		}
		if (strcmp(op, ",") == 0) {
			rvalue(b, kids[0], false);
			fb_cond(b, kids[1], t, f);
			free(kids);
			return;
		}
	}
	if (kind(b, c) == CXCursor_UnaryOperator && n == 1) {
		bool prefix;

		op = front_unop(b->fr, c, kids[0], &prefix, opbuf);
		if (op && strcmp(op, "!") == 0) {
			fb_cond(b, kids[0], f, t);
			free(kids);
			return;
		}
	}
	free(kids);
	/* Any other value: true when not zero, which for an unsigned one
	 * means at least 1. */
	v = rvalue(b, c, true);
	{
		struct range r = cursor_range(b, c);
		struct ir_expr pos = expr_addmul(&v, -1, &one);

		branch(b, line, r.is_unsigned ? &pos : NULL, false, &v, true, t, f);
	}
}
