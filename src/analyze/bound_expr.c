/* Bound expressions as text: a recursive-descent parser and evaluator. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/bound_expr.h"
#include "util/common.h"

enum bk { BK_NUM, BK_NAME, BK_INF, BK_ADD, BK_SUB, BK_MUL, BK_DIV, BK_POW, BK_NEG, BK_FN };

struct bexpr {
	enum bk kind;
	double num;
	char *name;  /* BK_NAME; BK_FN: max, min, ceil, floor, log */
	double base; /* BK_FN log */
	struct bexpr **arg;
	int narg;
	/* the root only: the names used */
	const char **names;
	int nnames;
};

struct lexer {
	const char *s;
	bool bad;
};

static void skip_ws(struct lexer *lx)
{
	while (*lx->s == ' ' || *lx->s == '\t' || *lx->s == '\n')
		lx->s++;
}

static bool accept(struct lexer *lx, const char *tok)
{
	size_t n = strlen(tok);

	skip_ws(lx);
	if (strncmp(lx->s, tok, n) != 0)
		return false;
	lx->s += n;
	return true;
}

static struct bexpr *node(enum bk kind)
{
	struct bexpr *e = xcalloc(1, sizeof(*e));

	e->kind = kind;
	return e;
}

static void add_arg(struct bexpr *e, struct bexpr *a)
{
	e->arg = xrealloc(e->arg, (size_t)(e->narg + 1) * sizeof(*e->arg));
	e->arg[e->narg++] = a;
}

static struct bexpr *binary(enum bk kind, struct bexpr *a, struct bexpr *b)
{
	struct bexpr *e = node(kind);

	add_arg(e, a);
	add_arg(e, b);
	return e;
}

static struct bexpr *parse_expr(struct lexer *lx);

static bool is_name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

static struct bexpr *parse_call(struct lexer *lx, char *name)
{
	struct bexpr *e = node(BK_FN);

	e->name = name;
	if (strncmp(name, "log", 3) == 0) {
		char *end;

		e->base = name[3] ? strtod(name + 3, &end) : 2;
		if ((name[3] && *end) || e->base < 2)
			lx->bad = true;
		free(e->name);
		e->name = xstrdup("log");
	} else if (strcmp(name, "max") && strcmp(name, "min") && strcmp(name, "ceil") &&
		   strcmp(name, "floor")) {
		lx->bad = true;
	}
	do {
		add_arg(e, parse_expr(lx));
	} while (!lx->bad && accept(lx, ","));
	if (!accept(lx, ")"))
		lx->bad = true;
	if ((strcmp(e->name, "max") == 0 || strcmp(e->name, "min") == 0) ? e->narg < 1
									 : e->narg != 1)
		lx->bad = true;
	return e;
}

static struct bexpr *parse_primary(struct lexer *lx)
{
	struct bexpr *e;

	skip_ws(lx);
	if (accept(lx, "(")) {
		e = parse_expr(lx);
		if (!accept(lx, ")"))
			lx->bad = true;
		return e;
	}
	if (accept(lx, "∞") || accept(lx, "inf"))
		return node(BK_INF);
	if ((*lx->s >= '0' && *lx->s <= '9') || *lx->s == '.') {
		char *end;

		e = node(BK_NUM);
		e->num = strtod(lx->s, &end);
		lx->s = end;
		return e;
	}
	if (is_name_char(*lx->s, true)) {
		const char *start = lx->s;
		char *name;

		while (is_name_char(*lx->s, false))
			lx->s++;
		name = xstrndup(start, (size_t)(lx->s - start));
		if (accept(lx, "("))
			return parse_call(lx, name);
		e = node(BK_NAME);
		e->name = name;
		return e;
	}
	lx->bad = true;
	return node(BK_NUM);
}

static struct bexpr *parse_unary(struct lexer *lx)
{
	struct bexpr *e;

	if (accept(lx, "-")) {
		e = node(BK_NEG);
		add_arg(e, parse_unary(lx));
		return e;
	}
	e = parse_primary(lx);
	if (accept(lx, "^"))
		e = binary(BK_POW, e, parse_primary(lx));
	return e;
}

static struct bexpr *parse_term(struct lexer *lx)
{
	struct bexpr *e = parse_unary(lx);

	while (!lx->bad) {
		if (accept(lx, "×") || accept(lx, "*"))
			e = binary(BK_MUL, e, parse_unary(lx));
		else if (accept(lx, "/"))
			e = binary(BK_DIV, e, parse_unary(lx));
		else
			break;
	}
	return e;
}

static struct bexpr *parse_expr(struct lexer *lx)
{
	struct bexpr *e = parse_term(lx);

	while (!lx->bad) {
		if (accept(lx, "+"))
			e = binary(BK_ADD, e, parse_term(lx));
		else if (accept(lx, "-"))
			e = binary(BK_SUB, e, parse_term(lx));
		else
			break;
	}
	return e;
}

static void collect_names(struct bexpr *root, const struct bexpr *e)
{
	if (e->kind == BK_NAME) {
		for (int i = 0; i < root->nnames; i++)
			if (strcmp(root->names[i], e->name) == 0)
				return;
		root->names = xrealloc(root->names, (size_t)(root->nnames + 1) * sizeof(char *));
		root->names[root->nnames++] = e->name;
	}
	for (int i = 0; i < e->narg; i++)
		collect_names(root, e->arg[i]);
}

int bexpr_parse(const char *text, struct bexpr **out)
{
	struct lexer lx = {text, false};
	struct bexpr *e = parse_expr(&lx);

	skip_ws(&lx);
	if (lx.bad || *lx.s) {
		bexpr_free(e);
		*out = NULL;
		return err_set(ERR_PARSE, "not a bound expression: '%s'", text);
	}
	collect_names(e, e);
	*out = e;
	return 0;
}

void bexpr_free(struct bexpr *e)
{
	if (!e)
		return;
	for (int i = 0; i < e->narg; i++)
		bexpr_free(e->arg[i]);
	free(e->arg);
	free(e->name);
	free(e->names);
	free(e);
}

bool bexpr_is_inf(const struct bexpr *e)
{
	return e->kind == BK_INF;
}

int bexpr_names(const struct bexpr *e, const char *const **out)
{
	*out = e->names;
	return e->nnames;
}

static double eval_fn(const struct bexpr *e, double (*value)(const char *, void *), void *arg)
{
	double r = bexpr_eval(e->arg[0], value, arg);

	if (strcmp(e->name, "max") == 0 || strcmp(e->name, "min") == 0) {
		for (int i = 1; i < e->narg; i++) {
			double v = bexpr_eval(e->arg[i], value, arg);

			r = (strcmp(e->name, "max") == 0) == (v > r) ? v : r;
		}
		return r;
	}
	if (strcmp(e->name, "ceil") == 0)
		return ceil(r - 1e-9);
	if (strcmp(e->name, "floor") == 0)
		return floor(r + 1e-9);
	/* log: the floor of log_base(max(1, x)), as the collector means it. */
	return r < 1 ? 0 : floor(log(r) / log(e->base) + 1e-9);
}

double bexpr_eval(const struct bexpr *e, double (*value)(const char *, void *), void *arg)
{
	switch (e->kind) {
	case BK_NUM:
		return e->num;
	case BK_NAME:
		return value(e->name, arg);
	case BK_INF:
		return INFINITY;
	case BK_ADD:
		return bexpr_eval(e->arg[0], value, arg) + bexpr_eval(e->arg[1], value, arg);
	case BK_SUB:
		return bexpr_eval(e->arg[0], value, arg) - bexpr_eval(e->arg[1], value, arg);
	case BK_MUL:
		return bexpr_eval(e->arg[0], value, arg) * bexpr_eval(e->arg[1], value, arg);
	case BK_DIV:
		return bexpr_eval(e->arg[0], value, arg) / bexpr_eval(e->arg[1], value, arg);
	case BK_POW:
		return pow(bexpr_eval(e->arg[0], value, arg), bexpr_eval(e->arg[1], value, arg));
	case BK_NEG:
		return -bexpr_eval(e->arg[0], value, arg);
	case BK_FN:
		return eval_fn(e, value, arg);
	}
	return NAN;
}

/* ---- classes ---- */

/* Large, and a little apart per name, so that n - m is not taken for
 * zero. */
static double probe(const char *name, void *arg)
{
	(void)arg;
	return 1000.0 + (double)(strlen(name) % 7);
}

double bexpr_at_probe(const char *text)
{
	struct bexpr *e;
	double v;

	if (bexpr_parse(text, &e) < 0) {
		err_clear();
		return NAN;
	}
	v = bexpr_eval(e, probe, NULL);
	bexpr_free(e);
	return v;
}

bool bclass_parse(const char *text, struct bclass *out)
{
	const char *s = text;
	char *end;

	memset(out, 0, sizeof(*out));
	if (strncmp(s, "O(", 2) != 0)
		return false;
	s += 2;
	if (strcmp(s, "∞)") == 0 || strcmp(s, "inf)") == 0) {
		out->inf = true;
		return true;
	}
	if (strcmp(s, "1)") == 0)
		return true;
	if (*s == 'n') {
		s++;
		out->deg = 1;
		if (*s == '^') {
			long d = strtol(s + 1, &end, 10);

			if (end == s + 1 || d < 0 || d > 64)
				return false;
			out->deg = (int)d;
			s = end;
		}
		if (*s == ' ')
			s++;
	}
	if (strncmp(s, "log", 3) == 0) {
		s += 3;
		out->log = 1;
		if (*s == '^') {
			long l = strtol(s + 1, &end, 10);

			if (end == s + 1 || l < 1 || l > 64)
				return false;
			out->log = (int)l;
			s = end;
		}
		if (strncmp(s, " n", 2) != 0)
			return false;
		s += 2;
	}
	return strcmp(s, ")") == 0 && (out->deg || out->log);
}

int bclass_cmp(struct bclass a, struct bclass b)
{
	if (a.inf != b.inf)
		return a.inf ? 1 : -1;
	if (a.deg != b.deg)
		return a.deg < b.deg ? -1 : 1;
	if (a.log != b.log)
		return a.log < b.log ? -1 : 1;
	return 0;
}
