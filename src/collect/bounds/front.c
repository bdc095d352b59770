/*
 * The front end: libclang parses the file, and this walks the syntax tree
 * of each function defined in it (front_stmt.c, front_expr.c) into the
 * intermediate form. Here: the translation unit, its diagnostics, the main
 * file's tokens (libclang 14 does not say which operator an operator
 * cursor is, the token between its operands does), types and variables.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "collect/bounds/front.h"
#include "collect/bounds/front_priv.h"
#include "util/common.h"

/* ---- children, positions, tokens ---- */

struct kids {
	CXCursor *v;
	int n;
	size_t cap;
};

static enum CXChildVisitResult add_kid(CXCursor c, CXCursor parent, CXClientData data)
{
	struct kids *k = data;

	(void)parent;
	XGROW(k->v, (size_t)k->n + 1, k->cap);
	k->v[k->n++] = c;
	return CXChildVisit_Continue;
}

int front_children(const struct front *fr, CXCursor c, CXCursor **out)
{
	struct kids k = {0};

	fr->cx->clang_visitChildren(c, add_kid, &k);
	*out = k.v;
	return k.n;
}

static unsigned loc_offset(const struct front *fr, CXSourceLocation loc, int *line, int *col)
{
	unsigned l, c, off;
	CXFile file;

	fr->cx->clang_getExpansionLocation(loc, &file, &l, &c, &off);
	if (line)
		*line = (int)l;
	if (col)
		*col = (int)c;
	return off;
}

unsigned front_start(const struct front *fr, CXCursor c, int *line, int *col)
{
	CXSourceRange r = fr->cx->clang_getCursorExtent(c);

	return loc_offset(fr, fr->cx->clang_getRangeStart(r), line, col);
}

unsigned front_end(const struct front *fr, CXCursor c, int *line)
{
	CXSourceRange r = fr->cx->clang_getCursorExtent(c);

	return loc_offset(fr, fr->cx->clang_getRangeEnd(r), line, NULL);
}

int front_tok_at(const struct front *fr, unsigned offset)
{
	int lo = 0, hi = fr->ntoks;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (fr->toks[mid].start < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < fr->ntoks ? lo : -1;
}

/* The operator, copied into the caller's @buf. */
static const char *copy_op(const char *op, char buf[4])
{
	if (!op)
		return NULL;
	snprintf(buf, 4, "%s", op);
	return buf;
}

const char *front_binop(struct front *fr, CXCursor op, CXCursor lhs, CXCursor rhs, char buf[4])
{
	unsigned l_end = front_end(fr, lhs, NULL), r_start = front_start(fr, rhs, NULL, NULL);
	int t = front_tok_at(fr, l_end);

	(void)op;
	/* Inside a macro the operands have no place of their own, and no
	 * token of the file shows the operator (libclang 14 cannot name it). */
	if (t < 0 || r_start <= l_end || fr->toks[t].end > r_start || !fr->toks[t].punct)
		return NULL;
	return copy_op(fr->toks[t].text, buf);
}

const char *front_unop(struct front *fr, CXCursor op, CXCursor arg, bool *prefix, char buf[4])
{
	unsigned o_start = front_start(fr, op, NULL, NULL), o_end = front_end(fr, op, NULL);
	unsigned a_start = front_start(fr, arg, NULL, NULL), a_end = front_end(fr, arg, NULL);
	int t;

	*prefix = o_start < a_start;
	t = front_tok_at(fr, *prefix ? o_start : a_end);
	/* Inside a macro every part has the same position: say we do not know. */
	if (t < 0 || !fr->toks[t].punct || (*prefix && fr->toks[t].end > a_start) ||
	    (!*prefix && (a_end <= o_start || fr->toks[t].end > o_end)))
		return NULL;
	return copy_op(fr->toks[t].text, buf);
}

static void tokenize(struct front *fr, const char *path)
{
	const struct clang_api *cx = fr->cx;
	CXFile file = cx->clang_getFile(fr->tu, path);
	CXToken *toks = NULL;
	unsigned n = 0;
	struct stat st;

	if (!file || stat(path, &st) < 0)
		return;
	cx->clang_tokenize(fr->tu,
			   cx->clang_getRange(cx->clang_getLocationForOffset(fr->tu, file, 0),
					      cx->clang_getLocationForOffset(fr->tu, file,
									     (unsigned)st.st_size)),
			   &toks, &n);
	fr->toks = xcalloc(n + 1, sizeof(*fr->toks));
	for (unsigned i = 0; i < n; i++) {
		CXSourceRange r = cx->clang_getTokenExtent(fr->tu, toks[i]);
		struct ftok *t = &fr->toks[fr->ntoks++];

		t->start = loc_offset(fr, cx->clang_getRangeStart(r), NULL, NULL);
		t->end = loc_offset(fr, cx->clang_getRangeEnd(r), NULL, NULL);
		t->punct = cx->clang_getTokenKind(toks[i]) == CXToken_Punctuation;
		if (t->punct) {
			CXString s = cx->clang_getTokenSpelling(fr->tu, toks[i]);

			snprintf(t->text, sizeof(t->text), "%s", cx->clang_getCString(s));
			cx->clang_disposeString(s);
		}
	}
	cx->clang_disposeTokens(fr->tu, toks, n);
}

/* ---- constants and types ---- */

bool front_eval_int(const struct front *fr, CXCursor c, int64_t *out)
{
	CXEvalResult r = fr->cx->clang_Cursor_Evaluate(c);
	bool ok = false;

	if (!r)
		return false;
	if (fr->cx->clang_EvalResult_getKind(r) == CXEval_Int) {
		if (fr->cx->clang_EvalResult_isUnsignedInt(r)) {
			unsigned long long u = fr->cx->clang_EvalResult_getAsUnsigned(r);

			ok = u <= (unsigned long long)INT64_MAX;
			*out = (int64_t)u;
		} else {
			*out = fr->cx->clang_EvalResult_getAsLongLong(r);
			ok = true;
		}
	}
	fr->cx->clang_EvalResult_dispose(r);
	return ok;
}

bool front_int_range(const struct front *fr, CXType t, int64_t *lo, int64_t *hi, bool *is_unsigned,
		     int *bits)
{
	CXType c = fr->cx->clang_getCanonicalType(t);
	long long size;
	bool u;

	switch (c.kind) {
	case CXType_Char_U:
	case CXType_UChar:
	case CXType_UShort:
	case CXType_UInt:
	case CXType_ULong:
	case CXType_ULongLong:
	case CXType_Char16:
	case CXType_Char32:
		u = true;
		break;
	case CXType_Char_S:
	case CXType_SChar:
	case CXType_WChar:
	case CXType_Short:
	case CXType_Int:
	case CXType_Long:
	case CXType_LongLong:
	case CXType_Enum:
		u = false;
		break;
	default:
		return false; /* bool, 128-bit, floating, pointers, aggregates */
	}
	size = fr->cx->clang_Type_getSizeOf(c);
	if (size < 1 || size > 8)
		return false;
	*bits = (int)size * 8;
	*is_unsigned = u;
	if (u) {
		*lo = 0;
		*hi = size == 8 ? INT64_MAX : (int64_t)((1ULL << (size * 8)) - 1);
	} else {
		*lo = size == 8 ? INT64_MIN : -(int64_t)(1ULL << (size * 8 - 1));
		*hi = size == 8 ? INT64_MAX : (int64_t)((1ULL << (size * 8 - 1)) - 1);
	}
	return true;
}

/* ---- variables ---- */

bool fb_addr_taken(const struct fb *b, CXCursor decl)
{
	for (int i = 0; i < b->naddr; i++)
		if (b->fr->cx->clang_equalCursors(b->addr[i], decl))
			return true;
	return false;
}

static char *cursor_name(const struct front *fr, CXCursor c)
{
	CXString s = fr->cx->clang_getCursorSpelling(c);
	char *r = xstrdup(fr->cx->clang_getCString(s));

	fr->cx->clang_disposeString(s);
	return r;
}

static int var_create(struct fb *b, CXCursor decl)
{
	const struct clang_api *cx = b->fr->cx;
	CXType t = cx->clang_getCursorType(decl);
	enum CXCursorKind parent = cx->clang_getCursorKind(cx->clang_getCursorSemanticParent(decl));
	struct ir_var v;

	memset(&v, 0, sizeof(v));
	if (!front_int_range(b->fr, t, &v.lo, &v.hi, &v.is_unsigned, &v.bits))
		return -1;
	if (cx->clang_isVolatileQualifiedType(t) || fb_addr_taken(b, decl))
		return -1;
	v.name = cursor_name(b->fr, decl);
	v.kind = VK_INT;
	v.tracked = true;
	v.is_param = cx->clang_getCursorKind(decl) == CXCursor_ParmDecl;
	/* Static locals keep their value between calls: like globals, their
	 * value at the call is a symbol. */
	v.is_global = !v.is_param && (parent == CXCursor_TranslationUnit ||
				      cx->clang_Cursor_getStorageClass(decl) == CX_SC_Static ||
				      cx->clang_Cursor_getStorageClass(decl) == CX_SC_Extern);
	{
		int id = ir_var_add(b->f, &v);

		free(v.name);
		return id;
	}
}

int fb_var(struct fb *b, CXCursor decl)
{
	enum CXCursorKind k = b->fr->cx->clang_getCursorKind(decl);

	if (k != CXCursor_VarDecl && k != CXCursor_ParmDecl)
		return -1;
	for (int i = 0; i < b->nvars; i++)
		if (b->fr->cx->clang_equalCursors(b->vars[i].decl, decl))
			return b->vars[i].var;
	XGROW(b->vars, (size_t)b->nvars + 1, b->vars_cap);
	b->vars[b->nvars].decl = decl;
	b->vars[b->nvars].var = var_create(b, decl);
	return b->vars[b->nvars++].var;
}

int fb_temp(struct fb *b, CXType t)
{
	struct ir_var v;
	char name[32];

	memset(&v, 0, sizeof(v));
	if (!front_int_range(b->fr, t, &v.lo, &v.hi, &v.is_unsigned, &v.bits))
		return -1;
	snprintf(name, sizeof(name), "$t%d", b->ntemps++);
	v.name = name;
	v.kind = VK_INT;
	v.tracked = true;
	v.is_temp = true;
	return ir_var_add(b->f, &v);
}

/* ---- functions ---- */

static void fb_release(struct fb *b)
{
	for (int i = 0; i < b->nlabels; i++)
		free(b->labels[i].name);
	free(b->labels);
	free(b->vars);
	free(b->addr);
	free(b->brk);
	free(b->cont);
}

static struct ir_func *build_function(struct front *fr, CXCursor fn)
{
	const struct clang_api *cx = fr->cx;
	struct fb b;
	CXCursor *kids, body;
	int nkids, nargs;
	char *name = cursor_name(fr, fn);
	CXSourceLocation loc = cx->clang_getCursorLocation(fn);

	memset(&b, 0, sizeof(b));
	b.fr = fr;
	b.f = ir_func_new(name);
	free(name);
	loc_offset(fr, loc, &b.f->line, &b.f->col);
	nkids = front_children(fr, fn, &kids);
	body = kids[nkids - 1];
	free(kids);
	fb_find_addr_taken(&b, body);
	/* The parameters first, in order: their values at the call are the
	 * symbols bounds are written in. */
	nargs = cx->clang_Cursor_getNumArguments(fn);
	for (int i = 0; i < nargs; i++)
		fb_var(&b, cx->clang_Cursor_getArgument(fn, (unsigned)i));
	b.cur = b.f->entry;
	fb_stmt(&b, body);
	if (b.cur >= 0)
		ir_edge(b.f, b.cur, b.f->exit);
	fb_release(&b);
	return b.f;
}

struct collect_fns {
	struct front *fr;
	struct ir_func **v;
	int n;
	size_t cap;
};

static enum CXChildVisitResult visit_top(CXCursor c, CXCursor parent, CXClientData data)
{
	struct collect_fns *cf = data;
	const struct clang_api *cx = cf->fr->cx;
	CXCursor *kids;
	int nkids;
	bool has_body;

	(void)parent;
	if (cx->clang_getCursorKind(c) != CXCursor_FunctionDecl ||
	    !cx->clang_isCursorDefinition(c) ||
	    !cx->clang_Location_isFromMainFile(cx->clang_getCursorLocation(c)))
		return CXChildVisit_Continue;
	nkids = front_children(cf->fr, c, &kids);
	has_body = nkids > 0 && cx->clang_getCursorKind(kids[nkids - 1]) == CXCursor_CompoundStmt;
	free(kids);
	if (!has_body)
		return CXChildVisit_Continue;
	XGROW(cf->v, (size_t)cf->n + 1, cf->cap);
	cf->v[cf->n++] = build_function(cf->fr, c);
	return CXChildVisit_Continue;
}

/* ---- the file ---- */

static bool is_cxx_name(const char *path)
{
	static const char *const exts[] = {".cpp", ".cc", ".cxx", ".c++", ".C",
					   ".hpp", ".hh", ".hxx", ".ipp", ".tcc"};
	const char *dot = strrchr(path, '.');

	if (!dot || strchr(dot, '/'))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(exts); i++)
		if (strcmp(dot, exts[i]) == 0)
			return true;
	return false;
}

/* The first error clang reports, as "FILE:LINE:COL: error: TEXT". */
static int first_error(struct front *fr, const char *path)
{
	const struct clang_api *cx = fr->cx;
	unsigned n = cx->clang_getNumDiagnostics(fr->tu);
	int ret = 0;

	for (unsigned i = 0; i < n && ret == 0; i++) {
		CXDiagnostic d = cx->clang_getDiagnostic(fr->tu, i);

		if (cx->clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
			CXString text = cx->clang_getDiagnosticSpelling(d), fname;

			CXSourceLocation loc = cx->clang_getDiagnosticLocation(d);
			unsigned line, col, off;
			CXFile file;

			cx->clang_getExpansionLocation(loc, &file, &line, &col, &off);
			if (!file) { /* the driver's: about the flags */
				ret = err_set(ERR_PARSE, "%s: error: %s (in the flags after --)",
					      path, cx->clang_getCString(text));
			} else {
				fname = cx->clang_getFileName(file);
				ret = err_set(ERR_PARSE, "%s:%u:%u: error: %s",
					      cx->clang_getCString(fname), line, col,
					      cx->clang_getCString(text));
				cx->clang_disposeString(fname);
			}
			cx->clang_disposeString(text);
		}
		cx->clang_disposeDiagnostic(d);
	}
	return ret;
}

int front_parse(const char *path, char *const *cflags, int ncflags, struct ir_func ***funcs,
		int *nfuncs)
{
	struct front fr;
	struct collect_fns cf = {0};
	const char **args;
	CXIndex idx;
	struct stat st;
	int ret, nargs = 0;

	*funcs = NULL;
	*nfuncs = 0;
	if (is_cxx_name(path))
		return err_set(ERR_INVALID, "%s is C++: the bounds collector analyses C only",
			       path);
	if (stat(path, &st) < 0)
		return err_set(ERR_NOTFOUND, "cannot read %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return err_set(ERR_INVALID, "%s is not a file", path);
	memset(&fr, 0, sizeof(fr));
	ret = clang_lazy_load(&fr.cx);
	if (ret < 0)
		return ret;
	/* C whatever the name says; warnings are no concern of ours. */
	args = xcalloc((size_t)ncflags + 3, sizeof(*args));
	args[nargs++] = "-xc";
	args[nargs++] = "-w";
	for (int i = 0; i < ncflags; i++)
		args[nargs++] = cflags[i];
	idx = fr.cx->clang_createIndex(0, 0);
	if (fr.cx->clang_parseTranslationUnit2(idx, path, args, nargs, NULL, 0,
					       CXTranslationUnit_None, &fr.tu) != CXError_Success)
		ret = err_set(ERR_PARSE, "%s: libclang cannot parse it", path);
	if (ret == 0)
		ret = first_error(&fr, path);
	if (ret == 0) {
		tokenize(&fr, path);
		cf.fr = &fr;
		fr.cx->clang_visitChildren(fr.cx->clang_getTranslationUnitCursor(fr.tu), visit_top,
					   &cf);
		*funcs = cf.v;
		*nfuncs = cf.n;
	}
	if (fr.tu)
		fr.cx->clang_disposeTranslationUnit(fr.tu);
	fr.cx->clang_disposeIndex(idx);
	free(fr.toks);
	free(args);
	return ret;
}

void front_funcs_free(struct ir_func **funcs, int n)
{
	for (int i = 0; i < n; i++)
		ir_func_free(funcs[i]);
	free(funcs);
}
