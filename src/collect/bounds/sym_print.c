/* Bound expressions written as people read them (sym.h): the same bound
 * always in the same words, terms by class and then by text. */
#include <stdlib.h>
#include <string.h>

#include "collect/bounds/sym.h"
#include "collect/bounds/sym_priv.h"
#include "util/buf.h"
#include "util/common.h"

static void print_lin(const struct sym_ctx *x, const struct lin *l, struct buf *out)
{
	int parts = l->n + (l->c != 0 || l->n == 0);
	bool first = true;

	if (parts > 1)
		buf_addc(out, '(');
	for (int i = 0; i < l->n; i++) {
		const char *name = l->var[i] < x->nnames ? x->names[l->var[i]] : "?";

		buf_adds(out, first ? "" : " + ");
		if (l->k[i] == 1)
			buf_adds(out, name);
		else if (l->k[i] == -1)
			buf_addf(out, "-%s", name);
		else
			buf_addf(out, "%lld × %s", (long long)l->k[i], name);
		first = false;
	}
	if (l->c != 0 || l->n == 0)
		buf_addf(out, "%s%lld", first ? "" : " + ", (long long)l->c);
	if (parts > 1)
		buf_addc(out, ')');
}

/* An argument of max or log: a linear one as max(0, ...) spells it. */
static void print_arg(const struct sym_ctx *x, const struct poly *p, struct buf *out)
{
	struct lin l;

	if (sym_as_lin(x, p, &l))
		print_lin(x, &l, out);
	else
		sym_print(x, p, out);
}

static void print_atom(const struct sym_ctx *x, int id, struct buf *out)
{
	const struct atom *a = &x->atoms[id];

	switch (a->kind) {
	case AT_SYM:
		buf_adds(out, a->sym < x->nnames ? x->names[a->sym] : "?");
		break;
	case AT_MAX0:
		buf_adds(out, "max(0, ");
		print_lin(x, &a->l, out);
		buf_addc(out, ')');
		break;
	case AT_LOG:
		buf_addf(out, "log%lld(max(1, ", (long long)a->k);
		print_arg(x, a->p, out);
		buf_adds(out, "))");
		break;
	case AT_CEIL:
		buf_adds(out, "ceil(");
		sym_print(x, a->p, out);
		buf_addf(out, " / %lld)", (long long)a->k);
		break;
	case AT_MAX:
		buf_adds(out, "max(");
		print_arg(x, a->p, out);
		buf_adds(out, ", ");
		print_arg(x, a->q, out);
		buf_addc(out, ')');
		break;
	}
}

/* The order factors are printed in, whatever order they were made in:
 * symbols and max(0, ...) first, then max, ceil and log, each by text. */
struct factor {
	int rank;
	char *text;
	int power;
};

static int factor_cmp(const void *a, const void *b)
{
	const struct factor *p = a, *q = b;

	return p->rank != q->rank ? p->rank - q->rank : strcmp(p->text, q->text);
}

static void print_mono(const struct sym_ctx *x, const struct mono *m, struct buf *out)
{
	static const int rank[] = {
		[AT_SYM] = 0, [AT_MAX0] = 1, [AT_MAX] = 2, [AT_CEIL] = 3, [AT_LOG] = 4};
	struct factor f[MONO_MAX];
	int nf = 0;

	if (m->na == 0) {
		buf_addf(out, "%lld", (long long)m->c);
		return;
	}
	for (int i = 0; i < m->na;) {
		struct buf t = BUF_INIT;
		int p = 1;

		while (i + p < m->na && m->a[i + p] == m->a[i])
			p++;
		print_atom(x, m->a[i], &t);
		f[nf++] = (struct factor){rank[x->atoms[m->a[i]].kind], buf_detach(&t, NULL), p};
		i += p;
	}
	qsort(f, (size_t)nf, sizeof(*f), factor_cmp);
	if (m->c == -1)
		buf_addc(out, '-');
	else if (m->c != 1)
		buf_addf(out, "%lld × ", (long long)m->c);
	for (int i = 0; i < nf; i++) {
		buf_addf(out, "%s%s", i ? " × " : "", f[i].text);
		if (f[i].power > 1)
			buf_addf(out, "^%d", f[i].power);
		free(f[i].text);
	}
}

struct printed {
	struct sym_class cls;
	char *text;
};

static int printed_cmp(const void *a, const void *b)
{
	const struct printed *p = a, *q = b;
	int c = sym_class_cmp(p->cls, q->cls);

	return c ? c : strcmp(p->text, q->text);
}

void sym_print(const struct sym_ctx *x, const struct poly *a, struct buf *out)
{
	struct printed *t;

	if (a->inf) {
		buf_adds(out, "∞");
		return;
	}
	if (a->n == 0) {
		buf_addc(out, '0');
		return;
	}
	/* The constant first, then the terms by class and text: the same
	 * bound always reads the same. */
	t = xcalloc((size_t)a->n, sizeof(*t));
	for (int i = 0; i < a->n; i++) {
		struct buf b = BUF_INIT;
		struct poly one = {false, 1, &a->m[i]};

		print_mono(x, &a->m[i], &b);
		t[i].text = buf_detach(&b, NULL);
		t[i].cls = sym_class_of(x, &one);
	}
	qsort(t, (size_t)a->n, sizeof(*t), printed_cmp);
	for (int i = 0; i < a->n; i++) {
		if (i)
			buf_adds(out, " + ");
		buf_adds(out, t[i].text);
		free(t[i].text);
	}
	free(t);
}
