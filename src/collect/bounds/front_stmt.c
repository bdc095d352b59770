/*
 * Statements into the control-flow graph: sequences, branches, switch,
 * the three loops (each records its header and its place in the source),
 * labels and goto (a goto back to a label makes a loop, found later from
 * the graph), break, continue and return.
 */
#include <stdlib.h>
#include <string.h>

#include "collect/bounds/front_priv.h"
#include "util/common.h"

static enum CXCursorKind kind(const struct fb *b, CXCursor c)
{
	return b->fr->cx->clang_getCursorKind(c);
}

static int join2(struct fb *b, int x, int y, int line)
{
	int n;

	if (x < 0)
		return y;
	if (y < 0 || x == y)
		return x;
	n = ir_node_add(b->f, OP_NOP, line);
	ir_edge(b->f, x, n);
	ir_edge(b->f, y, n);
	return n;
}

/* Control goes to @to; nothing follows until a label. */
static void jump(struct fb *b, int to)
{
	if (b->cur >= 0)
		ir_edge(b->f, b->cur, to);
	b->cur = -1;
}

/* Statements after a jump are unreachable, but a label among them is not. */
static void ensure_cur(struct fb *b, int line)
{
	if (b->cur < 0)
		b->cur = ir_node_add(b->f, OP_NOP, line);
}

static void push_jumps(struct fb *b, int brk, int cont)
{
	if ((size_t)b->nbrk == b->jump_cap || (size_t)b->ncont == b->jump_cap) {
		XGROW(b->brk, b->jump_cap + 1, b->jump_cap);
		XRESIZE(b->cont, b->jump_cap);
	}
	b->brk[b->nbrk++] = brk;
	if (cont >= 0)
		b->cont[b->ncont++] = cont;
}

static void pop_jumps(struct fb *b, bool cont)
{
	b->nbrk--;
	if (cont)
		b->ncont--;
}

static int label_node(struct fb *b, const char *name)
{
	for (int i = 0; i < b->nlabels; i++)
		if (strcmp(b->labels[i].name, name) == 0)
			return b->labels[i].node;
	XGROW(b->labels, (size_t)b->nlabels + 1, b->labels_cap);
	b->labels[b->nlabels].name = xstrdup(name);
	b->labels[b->nlabels].node = ir_node_add(b->f, OP_NOP, 0);
	b->labels[b->nlabels].line = 0;
	return b->labels[b->nlabels++].node;
}

static char *spelling(const struct fb *b, CXCursor c)
{
	CXString s = b->fr->cx->clang_getCursorSpelling(c);
	char *r = xstrdup(b->fr->cx->clang_getCString(s));

	b->fr->cx->clang_disposeString(s);
	return r;
}

/* A loop's header node, recorded with the statement's place. */
static int loop_header(struct fb *b, CXCursor c, enum ir_loop_kind k)
{
	struct ir_loop l;
	int h;

	memset(&l, 0, sizeof(l));
	l.kind = k;
	front_start(b->fr, c, &l.line, &l.col);
	front_end(b->fr, c, &l.end_line);
	h = ir_node_add(b->f, OP_NOP, l.line);
	l.header = h;
	b->f->nodes[h].loop = ir_loop_add(b->f, &l);
	if (b->cur >= 0)
		ir_edge(b->f, b->cur, h);
	b->cur = h;
	return h;
}

/*
 * The parts of a for statement: libclang lists only those present, so we
 * tell them apart by where they are against the two semicolons between
 * the parentheses. False when the tokens do not say (a macro).
 */
static bool for_parts(struct fb *b, CXCursor c, CXCursor kids[], int n, int part[])
{
	const struct front *fr = b->fr;
	unsigned start = front_start(fr, c, NULL, NULL), semi[2] = {0, 0}, close = 0;
	int t = front_tok_at(fr, start), depth = 0, nsemi = 0;

	if (t < 0 || t + 1 >= fr->ntoks || !fr->toks[t + 1].punct ||
	    strcmp(fr->toks[t + 1].text, "(") != 0)
		return false;
	for (t = t + 1; t < fr->ntoks; t++) {
		const struct ftok *k = &fr->toks[t];

		if (!k->punct)
			continue;
		if (strcmp(k->text, "(") == 0) {
			depth++;
		} else if (strcmp(k->text, ")") == 0 && --depth == 0) {
			close = k->start;
			break;
		} else if (strcmp(k->text, ";") == 0 && depth == 1 && nsemi < 2) {
			semi[nsemi++] = k->start;
		}
	}
	if (nsemi != 2 || !close)
		return false;
	for (int i = 0; i < n; i++) {
		unsigned s = front_start(fr, kids[i], NULL, NULL);

		part[i] = s < semi[0] ? 0 : s < semi[1] ? 1 : s < close ? 2 : 3;
	}
	return true;
}

static void stmt_for(struct fb *b, CXCursor c)
{
	CXCursor *kids;
	int n = front_children(b->fr, c, &kids), part[8], h, t, f, exit_n, cont, line;
	int init = -1, cond = -1, inc = -1, body = -1;

	line = fb_line(b, c);
	/* All four parts there: their order says which is which, even when
	 * the loop is written through a macro and no token tells. */
	if (n == 4)
		for (int i = 0; i < 4; i++)
			part[i] = i;
	else if (n > 4 || !for_parts(b, c, kids, n, part)) {
		char *why = xasprintf("a for loop written through a macro at line %d", line);

		ir_set_opaque(b->f, why);
		free(why);
		free(kids);
		return;
	}
	for (int i = 0; i < n; i++) {
		int *slot = part[i] == 0   ? &init
			    : part[i] == 1 ? &cond
			    : part[i] == 2 ? &inc
					   : &body;

		*slot = i;
	}
	if (init >= 0)
		fb_stmt(b, kids[init]);
	h = loop_header(b, c, LOOP_FOR);
	if (cond >= 0) {
		fb_cond(b, kids[cond], &t, &f);
	} else {
		t = h;
		f = -1;
	}
	exit_n = ir_node_add(b->f, OP_NOP, line);
	if (f >= 0)
		ir_edge(b->f, f, exit_n);
	cont = ir_node_add(b->f, OP_NOP, line);
	push_jumps(b, exit_n, cont);
	b->cur = t;
	if (body >= 0)
		fb_stmt(b, kids[body]);
	jump(b, cont);
	b->cur = cont;
	if (inc >= 0)
		fb_effects(b, kids[inc]);
	jump(b, h);
	pop_jumps(b, true);
	b->cur = exit_n;
	free(kids);
}

static void stmt_while(struct fb *b, CXCursor c)
{
	CXCursor *kids;
	int n = front_children(b->fr, c, &kids), h, t, f, exit_n;

	if (n != 2) {
		ir_set_opaque(b->f, "a while loop we cannot read");
		free(kids);
		return;
	}
	h = loop_header(b, c, LOOP_WHILE);
	fb_cond(b, kids[0], &t, &f);
	exit_n = ir_node_add(b->f, OP_NOP, fb_line(b, c));
	ir_edge(b->f, f, exit_n);
	push_jumps(b, exit_n, h);
	b->cur = t;
	fb_stmt(b, kids[1]);
	jump(b, h);
	pop_jumps(b, true);
	b->cur = exit_n;
	free(kids);
}

static void stmt_do(struct fb *b, CXCursor c)
{
	CXCursor *kids;
	int n = front_children(b->fr, c, &kids), h, t, f, exit_n, cont, line = fb_line(b, c);

	if (n != 2) {
		ir_set_opaque(b->f, "a do loop we cannot read");
		free(kids);
		return;
	}
	h = loop_header(b, c, LOOP_DO);
	exit_n = ir_node_add(b->f, OP_NOP, line);
	cont = ir_node_add(b->f, OP_NOP, line);
	push_jumps(b, exit_n, cont);
	fb_stmt(b, kids[0]);
	jump(b, cont);
	b->cur = cont;
	fb_cond(b, kids[1], &t, &f);
	ir_edge(b->f, t, h);
	ir_edge(b->f, f, exit_n);
	pop_jumps(b, true);
	b->cur = exit_n;
	free(kids);
}

static void stmt_if(struct fb *b, CXCursor c)
{
	CXCursor *kids;
	int n = front_children(b->fr, c, &kids), t, f, t_end, line = fb_line(b, c);

	if (n < 2) {
		free(kids);
		return;
	}
	fb_cond(b, kids[0], &t, &f);
	b->cur = t;
	fb_stmt(b, kids[1]);
	t_end = b->cur;
	b->cur = f;
	if (n > 2)
		fb_stmt(b, kids[2]);
	b->cur = join2(b, t_end, b->cur, line);
	free(kids);
}

static void stmt_switch(struct fb *b, CXCursor c)
{
	CXCursor *kids;
	int n = front_children(b->fr, c, &kids), exit_n, line = fb_line(b, c);
	struct sw sw;

	if (n != 2) {
		ir_set_opaque(b->f, "a switch we cannot read");
		free(kids);
		return;
	}
	memset(&sw, 0, sizeof(sw));
	sw.value = fb_rvalue(b, kids[0]);
	ensure_cur(b, line);
	sw.dispatch = b->cur;
	sw.outer = b->sw;
	b->sw = &sw;
	exit_n = ir_node_add(b->f, OP_NOP, line);
	push_jumps(b, exit_n, -1);
	b->cur = -1;
	fb_stmt(b, kids[1]);
	jump(b, exit_n);
	/* No default: the value may match no case. */
	if (!sw.has_default)
		ir_edge(b->f, sw.dispatch, exit_n);
	pop_jumps(b, false);
	b->sw = sw.outer;
	b->cur = exit_n;
	free(kids);
}

/* case C: reached from the dispatch when the value equals C, and by
 * falling through from the case before. */
static void stmt_case(struct fb *b, CXCursor c, bool is_default)
{
	CXCursor *kids;
	int n = front_children(b->fr, c, &kids), line = fb_line(b, c), label, from;
	int64_t k;

	label = ir_node_add(b->f, OP_NOP, line);
	if (b->cur >= 0)
		ir_edge(b->f, b->cur, label);
	if (b->sw) {
		from = b->sw->dispatch;
		if (!is_default && n == 2 && front_eval_int(b->fr, kids[0], &k) &&
		    !b->sw->value.v.unknown) {
			struct val kv = val_const(k);
			struct ir_expr ke = expr_val(&kv);
			int a = ir_node_add(b->f, OP_ASSUME, line);

			b->f->nodes[a].e = expr_addmul(&b->sw->value, -1, &ke);
			b->f->nodes[a].eq = true;
			ir_edge(b->f, from, a);
			from = a;
		}
		ir_edge(b->f, from, label);
		b->sw->has_default |= is_default;
	}
	b->cur = label;
	if (n > 0)
		fb_stmt(b, kids[n - 1]);
	free(kids);
}

static void stmt_label(struct fb *b, CXCursor c)
{
	CXCursor *kids;
	int n = front_children(b->fr, c, &kids), node;
	char *name = spelling(b, c);

	node = label_node(b, name);
	for (int i = 0; i < b->nlabels; i++)
		if (b->labels[i].node == node)
			front_start(b->fr, c, &b->labels[i].line, &b->labels[i].col);
	b->f->nodes[node].line = fb_line(b, c);
	if (b->cur >= 0)
		ir_edge(b->f, b->cur, node);
	b->cur = node;
	if (n > 0)
		fb_stmt(b, kids[n - 1]);
	free(name);
	free(kids);
}

static void stmt_goto(struct fb *b, CXCursor c)
{
	CXCursor *kids;
	int n = front_children(b->fr, c, &kids);

	if (n >= 1) {
		char *name = spelling(b, kids[0]);
		int to = label_node(b, name);

		/* A node of its own, so a loop closed by this goto knows its line. */
		ensure_cur(b, fb_line(b, c));
		fb_emit(b, OP_NOP, fb_line(b, c));
		jump(b, to);
		free(name);
	}
	free(kids);
}

static void stmt_decl(struct fb *b, CXCursor c)
{
	const struct clang_api *cx = b->fr->cx;
	CXCursor *kids;
	int n = front_children(b->fr, c, &kids);

	for (int i = 0; i < n; i++) {
		CXCursor *sub, init;
		int ns, var, line = fb_line(b, kids[i]);
		bool has_init = false;
		CXType t;

		if (kind(b, kids[i]) != CXCursor_VarDecl)
			continue;
		t = cx->clang_getCanonicalType(cx->clang_getCursorType(kids[i]));
		ns = front_children(b->fr, kids[i], &sub);
		/* An array's children are its sizes; a scalar's last is its value. */
		for (int k = 0; k < ns; k++) {
			if (!cx->clang_isExpression(kind(b, sub[k])))
				continue;
			if (t.kind == CXType_VariableArray || t.kind == CXType_ConstantArray ||
			    t.kind == CXType_IncompleteArray || k != ns - 1)
				fb_effects(b, sub[k]);
			else
				init = sub[k], has_init = true;
		}
		free(sub);
		var = fb_var(b, kids[i]);
		if (cx->clang_Cursor_getStorageClass(kids[i]) == CX_SC_Static ||
		    cx->clang_Cursor_getStorageClass(kids[i]) == CX_SC_Extern)
			continue; /* initialised once, not here */
		if (has_init) {
			struct ir_expr e = fb_rvalue(b, init);

			if (var >= 0) {
				int node = fb_emit(b, OP_ASSIGN, line);

				b->f->nodes[node].var = var;
				b->f->nodes[node].e = e;
			}
		} else if (var >= 0) {
			int node = fb_emit(b, OP_HAVOC, line);

			b->f->nodes[node].var = var;
		}
	}
	free(kids);
}

static void stmt_children(struct fb *b, CXCursor c)
{
	CXCursor *kids;
	int n = front_children(b->fr, c, &kids);

	for (int i = 0; i < n; i++)
		fb_stmt(b, kids[i]);
	free(kids);
}

void fb_stmt(struct fb *b, CXCursor c)
{
	enum CXCursorKind k = kind(b, c);
	int line = fb_line(b, c);

	if (k != CXCursor_LabelStmt && k != CXCursor_CaseStmt && k != CXCursor_DefaultStmt &&
	    k != CXCursor_CompoundStmt)
		ensure_cur(b, line);
	switch (k) {
	case CXCursor_CompoundStmt:
		stmt_children(b, c);
		break;
	case CXCursor_DeclStmt:
		stmt_decl(b, c);
		break;
	case CXCursor_IfStmt:
		stmt_if(b, c);
		break;
	case CXCursor_ForStmt:
		stmt_for(b, c);
		break;
	case CXCursor_WhileStmt:
		stmt_while(b, c);
		break;
	case CXCursor_DoStmt:
		stmt_do(b, c);
		break;
	case CXCursor_SwitchStmt:
		stmt_switch(b, c);
		break;
	case CXCursor_CaseStmt:
	case CXCursor_DefaultStmt:
		stmt_case(b, c, k == CXCursor_DefaultStmt);
		break;
	case CXCursor_LabelStmt:
		stmt_label(b, c);
		break;
	case CXCursor_GotoStmt:
		stmt_goto(b, c);
		break;
	case CXCursor_BreakStmt:
		if (b->nbrk)
			jump(b, b->brk[b->nbrk - 1]);
		break;
	case CXCursor_ContinueStmt:
		if (b->ncont)
			jump(b, b->cont[b->ncont - 1]);
		break;
	case CXCursor_ReturnStmt: {
		CXCursor *kids;
		int n = front_children(b->fr, c, &kids);

		for (int i = 0; i < n; i++)
			fb_effects(b, kids[i]);
		free(kids);
		jump(b, b->f->exit);
		break;
	}
	case CXCursor_IndirectGotoStmt: {
		char *why = xasprintf("a computed goto at line %d", line);

		ir_set_opaque(b->f, why);
		free(why);
		break;
	}
	case CXCursor_AsmStmt:
	case CXCursor_MSAsmStmt: {
		char *why = xasprintf("inline assembly at line %d", line);

		ir_set_opaque(b->f, why);
		free(why);
		break;
	}
	case CXCursor_NullStmt:
		break;
	default:
		if (b->fr->cx->clang_isExpression(k))
			fb_effects(b, c);
		else
			stmt_children(b, c); /* attributes, and statements we pass through */
		break;
	}
}

/* ---- declarations whose address is taken: not tracked ---- */

static enum CXChildVisitResult find_addr(CXCursor c, CXCursor parent, CXClientData data)
{
	struct fb *b = data;
	const struct clang_api *cx = b->fr->cx;

	(void)parent;
	if (cx->clang_getCursorKind(c) == CXCursor_UnaryOperator) {
		CXCursor *kids;
		int n = front_children(b->fr, c, &kids);
		bool prefix;
		char opbuf[4];
		const char *op = n == 1 ? front_unop(b->fr, c, kids[0], &prefix, opbuf) : NULL;

		/* An operator we cannot see (in a macro) may be &, when what it
		 * makes is a pointer: forget the variable too. */
		if (n == 1 && (op ? strcmp(op, "&") == 0
				  : cx->clang_getCanonicalType(cx->clang_getCursorType(c)).kind ==
					       CXType_Pointer)) {
			CXCursor in = fb_strip(b, kids[0]);

			while (cx->clang_getCursorKind(in) == CXCursor_MemberRefExpr ||
			       cx->clang_getCursorKind(in) == CXCursor_ArraySubscriptExpr) {
				CXCursor *sub;
				int ns = front_children(b->fr, in, &sub);

				if (ns == 0) {
					free(sub);
					break;
				}
				in = fb_strip(b, sub[0]);
				free(sub);
			}
			if (cx->clang_getCursorKind(in) == CXCursor_DeclRefExpr) {
				XGROW(b->addr, (size_t)b->naddr + 1, b->addr_cap);
				b->addr[b->naddr++] = cx->clang_getCursorReferenced(in);
			}
		}
		free(kids);
	}
	return CXChildVisit_Recurse;
}

void fb_find_addr_taken(struct fb *b, CXCursor c)
{
	b->fr->cx->clang_visitChildren(c, find_addr, b);
}
