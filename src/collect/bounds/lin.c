/* Linear forms: small sorted term arrays, overflow-checked. */
#include <stdlib.h>
#include <string.h>

#include "collect/bounds/lin.h"
#include "util/common.h"

static struct lin lin_bad(void)
{
	struct lin r;

	memset(&r, 0, sizeof(r));
	r.bad = true;
	return r;
}

struct lin lin_const(int64_t c)
{
	struct lin r;

	memset(&r, 0, sizeof(r));
	r.c = c;
	return r;
}

struct lin lin_var(int var)
{
	struct lin r = lin_const(0);

	r.n = 1;
	r.var[0] = var;
	r.k[0] = 1;
	return r;
}

struct lin lin_addmul(const struct lin *a, int64_t m, const struct lin *b)
{
	struct lin r = lin_const(0);
	int i = 0, j = 0;

	if (a->bad || b->bad || __builtin_mul_overflow(b->c, m, &r.c) ||
	    __builtin_add_overflow(r.c, a->c, &r.c))
		return lin_bad();
	while (i < a->n || j < b->n) {
		int v;
		int64_t k = 0, t;

		if (j >= b->n || (i < a->n && a->var[i] < b->var[j])) {
			v = a->var[i];
			k = a->k[i++];
		} else if (i >= a->n || b->var[j] < a->var[i]) {
			v = b->var[j];
			if (__builtin_mul_overflow(b->k[j++], m, &k))
				return lin_bad();
		} else {
			v = a->var[i];
			if (__builtin_mul_overflow(b->k[j++], m, &t) ||
			    __builtin_add_overflow(a->k[i++], t, &k))
				return lin_bad();
		}
		if (k == 0)
			continue;
		if (r.n == LIN_MAX)
			return lin_bad();
		r.var[r.n] = v;
		r.k[r.n++] = k;
	}
	return r;
}

struct lin lin_add(const struct lin *a, const struct lin *b)
{
	return lin_addmul(a, 1, b);
}

struct lin lin_sub(const struct lin *a, const struct lin *b)
{
	return lin_addmul(a, -1, b);
}

struct lin lin_scale(const struct lin *a, int64_t m)
{
	struct lin z = lin_const(0);

	return lin_addmul(&z, m, a);
}

struct lin lin_addc(const struct lin *a, int64_t c)
{
	struct lin r = *a;

	if (!r.bad && __builtin_add_overflow(r.c, c, &r.c))
		return lin_bad();
	return r;
}

int64_t lin_coef(const struct lin *a, int var)
{
	for (int i = 0; i < a->n; i++)
		if (a->var[i] == var)
			return a->k[i];
	return 0;
}

struct lin lin_subst(const struct lin *a, int var, const struct lin *by)
{
	int64_t k = lin_coef(a, var);
	struct lin rest = *a;
	int i, o = 0;

	if (a->bad || k == 0)
		return *a;
	for (i = 0; i < rest.n; i++) {
		if (rest.var[i] == var)
			continue;
		rest.var[o] = rest.var[i];
		rest.k[o++] = rest.k[i];
	}
	rest.n = o;
	return lin_addmul(&rest, k, by);
}

bool lin_same_vars(const struct lin *a, const struct lin *b)
{
	if (a->bad || b->bad || a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++)
		if (a->var[i] != b->var[i] || a->k[i] != b->k[i])
			return false;
	return true;
}

bool lin_eq(const struct lin *a, const struct lin *b)
{
	return lin_same_vars(a, b) && a->c == b->c;
}

int lin_cmp(const struct lin *a, const struct lin *b)
{
	if (a->bad != b->bad)
		return a->bad ? 1 : -1;
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (int i = 0; i < a->n; i++) {
		if (a->var[i] != b->var[i])
			return a->var[i] < b->var[i] ? -1 : 1;
		if (a->k[i] != b->k[i])
			return a->k[i] < b->k[i] ? -1 : 1;
	}
	if (a->c != b->c)
		return a->c < b->c ? -1 : 1;
	return 0;
}

int64_t gcd64(int64_t a, int64_t b)
{
	if (a < 0)
		a = a == INT64_MIN ? INT64_MAX : -a;
	if (b < 0)
		b = b == INT64_MIN ? INT64_MAX : -b;
	while (b) {
		int64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* floor(a / b) for b > 0. */
static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && a < 0) ? q - 1 : q;
}

struct lin lin_tighten(const struct lin *a)
{
	struct lin r = *a;
	int64_t g = 0;

	if (r.bad || r.n == 0)
		return r;
	for (int i = 0; i < r.n; i++)
		g = gcd64(g, r.k[i]);
	if (g <= 1)
		return r;
	for (int i = 0; i < r.n; i++)
		r.k[i] /= g;
	r.c = floor_div(r.c, g);
	return r;
}
