/* The sequential signed-rank test on paired differences (seqtest.h). */
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/seqtest.h"
#include "util/common.h"

/* Up to this many pairs the signed-rank distribution is computed exactly. */
#define SEQ_EXACT_MAX 200

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The largest c with P(T+ <= c) <= @half_alpha for the signed-rank
 * statistic of @n pairs, or -1 when even T+ = 0 is likelier than that.
 */
static long critical_value(size_t n, double half_alpha)
{
	size_t m = n * (n + 1) / 2;
	double *f, cum = 0;
	long c = -1;

	if (n > SEQ_EXACT_MAX) {
		double sd = sqrt((double)n * (n + 1) * (2 * n + 1) / 24.0);
		double z = gsl_cdf_ugaussian_Qinv(half_alpha);

		c = (long)floor((double)m / 2 - z * sd - 0.5);
		return c < -1 ? -1 : c;
	}
	/* f[s]: the share of the 2^n sign patterns whose positive ranks sum to s. */
	f = xcalloc(m + 1, sizeof(*f));
	f[0] = 1;
	for (size_t r = 1; r <= n; r++) {
		size_t top = r * (r + 1) / 2;

		for (size_t s = top; s >= r; s--)
			f[s] = (f[s] + f[s - r]) / 2;
		for (size_t s = 0; s < r && s <= top; s++)
			f[s] /= 2;
	}
	for (size_t s = 0; s <= m / 2; s++) {
		cum += f[s];
		if (cum > half_alpha)
			break;
		c = (long)s;
	}
	free(f);
	return c;
}

void seq_hodges_lehmann(const double *d, size_t n, double alpha, double *est, double *lo,
			double *hi)
{
	size_t m = n * (n + 1) / 2, k = 0;
	double *w;
	long c;

	*est = *lo = *hi = NAN;
	if (n == 0)
		return;
	w = xcalloc(m, sizeof(*w));
	for (size_t i = 0; i < n; i++)
		for (size_t j = i; j < n; j++)
			w[k++] = (d[i] + d[j]) / 2;
	qsort(w, m, sizeof(*w), cmp_double);
	*est = m % 2 ? w[m / 2] : (w[m / 2 - 1] + w[m / 2]) / 2;
	c = critical_value(n, alpha / 2);
	*lo = c < 0 ? -INFINITY : w[c];
	*hi = c < 0 ? INFINITY : w[m - 1 - (size_t)c];
	free(w);
}

struct ranked {
	double a;
	bool pos;
};

static int cmp_ranked(const void *x, const void *y)
{
	return cmp_double(&((const struct ranked *)x)->a, &((const struct ranked *)y)->a);
}

double seq_signed_rank_p(const double *d, size_t n)
{
	struct ranked *r = xcalloc(n ? n : 1, sizeof(*r));
	double tplus = 0, ties = 0, mean, var, z;
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (d[i] != 0 && !isnan(d[i]))
			r[k++] = (struct ranked){fabs(d[i]), d[i] > 0};
	if (k == 0) {
		free(r);
		return 1;
	}
	qsort(r, k, sizeof(*r), cmp_ranked);
	for (size_t i = 0; i < k;) {
		size_t j = i;
		double rank;

		while (j + 1 < k && r[j + 1].a == r[i].a)
			j++;
		rank = (double)(i + j + 2) / 2;
		for (size_t t = i; t <= j; t++)
			tplus += r[t].pos ? rank : 0;
		ties += pow((double)(j - i + 1), 3) - (double)(j - i + 1);
		i = j + 1;
	}
	free(r);
	mean = (double)k * (k + 1) / 4;
	var = (double)k * (k + 1) * (2 * k + 1) / 24 - ties / 48;
	if (var <= 0)
		return 1;
	z = (fabs(tplus - mean) - 0.5) / sqrt(var);
	return z <= 0 ? 1 : fmin(1, 2 * gsl_cdf_ugaussian_Q(z));
}

void seq_init(struct seq_test *t, const struct seq_params *p)
{
	t->p = *p;
	if (t->p.first_look < 2)
		t->p.first_look = 2;
	t->looks = 0;
	t->spent = 0;
	t->next = t->p.first_look;
}

bool seq_due(const struct seq_test *t, size_t n)
{
	return n >= t->next;
}

/* Look number ++looks at level @alpha_k. */
static void look_at(struct seq_test *t, const double *d, size_t n, double alpha_k,
		    struct seq_look *out)
{
	double m = t->p.margin;
	size_t grown = (size_t)ceil((double)n * 1.25);

	memset(out, 0, sizeof(*out));
	out->n = n;
	out->k = ++t->looks;
	out->alpha_k = alpha_k;
	t->spent += alpha_k;
	seq_hodges_lehmann(d, n, out->alpha_k, &out->est, &out->lo, &out->hi);
	out->p = seq_signed_rank_p(d, n);
	t->next = grown > n + 2 ? grown : n + 2;
	if (out->lo > m)
		out->verdict = SEQ_ABOVE;
	else if (out->hi < -m)
		out->verdict = SEQ_BELOW;
	else if (m > 0 && out->lo > -m && out->hi < m)
		out->verdict = SEQ_WITHIN;
	else
		out->verdict = SEQ_UNSURE;
}

void seq_look(struct seq_test *t, const double *d, size_t n, struct seq_look *out)
{
	double k = t->looks + 1;

	look_at(t, d, n, SEQ_INTERIM_SHARE * t->p.alpha / (k * (k + 1)), out);
}

void seq_look_last(struct seq_test *t, const double *d, size_t n, struct seq_look *out)
{
	double left = t->p.alpha - t->spent;

	look_at(t, d, n, left > 0 ? left : 0, out);
}
