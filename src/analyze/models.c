/* Reading models out of a profile's JSON, and evaluating them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/models.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"

static const char *const kind_names[] = {
	[MODEL_CONSTANT] = "constant",
	[MODEL_LOGARITHMIC] = "logarithmic",
	[MODEL_LINEAR] = "linear",
	[MODEL_QUADRATIC] = "quadratic",
	[MODEL_POWER] = "power",
	[MODEL_EXPONENTIAL] = "exponential",
	[MODEL_MOVING_AVERAGE] = "moving_average",
	[MODEL_REGRESSOGRAM] = "regressogram",
	[MODEL_KERNEL] = "kernel",
};

const char *model_kind_name(enum model_kind k)
{
	return kind_names[k];
}

static int kind_of(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(kind_names); i++)
		if (strcmp(name, kind_names[i]) == 0)
			return (int)i;
	/* Perun's kernel-regression postprocessor names its models so. */
	if (name && strcmp(name, "kernel_regression") == 0)
		return MODEL_KERNEL;
	return -1;
}

/* b0..b2 by name ("b1"), else by place; a missing value is 0. */
static void read_coeffs(const struct model_rec *r, struct model *m)
{
	for (size_t i = 0; i < r->ncoeffs; i++) {
		const char *name = r->coeff_names[i];
		size_t k = name[0] == 'b' && name[1] >= '0' && name[1] <= '2' && !name[2]
				   ? (size_t)(name[1] - '0')
				   : i;

		if (k < 3)
			m->b[k] = isnan(r->coeffs[i]) ? 0 : r->coeffs[i];
	}
}

/* Points at evenly spaced x over [x_start, x_end] (Perun writes no
 * x_values); a regressogram's buckets start every (x_end - x_start) / n. */
static double *even_xs(const struct model *m, size_t n)
{
	double *x = xcalloc(n ? n : 1, sizeof(*x));
	double span = isfinite(m->x_start) && isfinite(m->x_end) ? m->x_end - m->x_start : 0;
	size_t parts = m->kind == MODEL_REGRESSOGRAM ? n : n > 1 ? n - 1 : 1;

	for (size_t i = 0; i < n; i++)
		x[i] = isfinite(m->x_start) ? m->x_start + span * (double)i / (double)parts
					    : (double)i;
	return x;
}

/* Drops the points whose x or y is not a number, keeping their order. */
static void drop_nan_points(struct model *m)
{
	size_t k = 0;

	for (size_t i = 0; i < m->npts; i++) {
		if (isnan(m->xs[i]) || isnan(m->ys[i]))
			continue;
		m->xs[k] = m->xs[i];
		m->ys[k++] = m->ys[i];
	}
	m->npts = k;
}

/* A model the checks can use from one record; false when it is none. */
static bool from_rec(const struct model_rec *r, struct model *m)
{
	int kind = kind_of(r->kind);

	if (kind < 0)
		return false;
	memset(m, 0, sizeof(*m));
	if (r->subtype) {
		struct buf label = BUF_INIT;

		/* real, user and sys of one command are compared each with its own. */
		profile_group_label(&label, r->uid, r->subtype);
		m->uid = buf_detach(&label, NULL);
	} else {
		m->uid = xstrdup(r->uid);
	}
	m->name = xstrdup(r->kind);
	m->kind = (enum model_kind)kind;
	m->r_square = r->r_square;
	m->rank = isnan(r->r_square_perun) ? r->r_square : r->r_square_perun;
	m->x_start = isnan(r->x_start) ? -INFINITY : r->x_start;
	m->x_end = isnan(r->x_end) ? INFINITY : r->x_end;
	if (model_is_parametric(m)) {
		read_coeffs(r, m);
		return true;
	}
	m->ys = xmalloc((r->nys + 1) * sizeof(*m->ys));
	memcpy(m->ys, r->ys, r->nys * sizeof(*m->ys));
	if (r->xs) {
		m->npts = r->n;
		m->xs = xmalloc((r->n + 1) * sizeof(*m->xs));
		memcpy(m->xs, r->xs, r->n * sizeof(*m->xs));
	} else {
		m->xs = even_xs(m, r->nys);
		m->npts = r->nys;
	}
	drop_nan_points(m);
	return m->npts > 0;
}

static int cmp_models(const void *x, const void *y)
{
	const struct model *a = x, *b = y;
	int c = strcmp(a->uid, b->uid);

	if (c)
		return c;
	if (a->x_start != b->x_start)
		return a->x_start < b->x_start ? -1 : 1;
	/* Higher rank first; NaN last. */
	if (isnan(a->rank) != isnan(b->rank))
		return isnan(a->rank) ? 1 : -1;
	if (a->rank != b->rank)
		return a->rank > b->rank ? -1 : 1;
	return 0;
}

int models_load(const struct profile *p, struct model_set *out)
{
	struct model_rec *r;
	size_t n;

	memset(out, 0, sizeof(*out));
	if (model_recs_read(p->models, MODELS_SKIP_BAD, &r, &n) < 0)
		return err_set(ERR_PARSE, "the profile's models are not a JSON array");
	out->v = xcalloc(n + 1, sizeof(*out->v));
	for (size_t i = 0; i < n; i++)
		if (from_rec(&r[i], &out->v[out->n]))
			out->n++;
	model_recs_free(r, n);
	qsort(out->v, out->n, sizeof(*out->v), cmp_models);
	return 0;
}

/* p->models without the whitespace around it, *@len bytes. */
static const char *models_text(const struct profile *p, size_t *len)
{
	const char *s = p->models ? p->models : "";
	size_t n;

	s += strspn(s, " \t\r\n");
	n = strlen(s);
	while (n && strchr(" \t\r\n", s[n - 1]))
		n--;
	*len = n;
	return s;
}

bool models_none(const struct profile *p)
{
	size_t n;
	const char *s = models_text(p, &n);

	if (n == 0 || (n == 4 && memcmp(s, "null", 4) == 0))
		return true;
	return s[0] == '[' && s[n - 1] == ']' && strspn(s + 1, " \t\r\n") == n - 2;
}

int models_append(struct profile *p, const char *items, size_t len)
{
	struct buf all = BUF_INIT;
	size_t n;
	const char *old = models_text(p, &n);

	if (len == 0)
		return 0;
	if (models_none(p)) {
		buf_addc(&all, '[');
	} else if (n >= 2 && old[0] == '[' && old[n - 1] == ']') {
		buf_add(&all, old, n - 1);
		buf_addc(&all, ',');
	} else {
		return err_set(ERR_PARSE, "the profile's models are not a JSON array");
	}
	buf_add(&all, items, len);
	buf_addc(&all, ']');
	free(p->models);
	p->models = buf_detach(&all, NULL);
	return 0;
}

void models_free(struct model_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].uid);
		free(s->v[i].name);
		free(s->v[i].xs);
		free(s->v[i].ys);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

bool model_is_parametric(const struct model *m)
{
	return m->kind <= MODEL_EXPONENTIAL;
}

static double eval_points(const struct model *m, double x)
{
	size_t lo = 0, hi = m->npts - 1;

	if (x <= m->xs[0])
		return m->ys[0];
	if (x >= m->xs[hi])
		return m->ys[hi];
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (m->xs[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	if (m->kind == MODEL_REGRESSOGRAM || m->xs[hi] == m->xs[lo])
		return m->ys[lo];
	return m->ys[lo] + (m->ys[hi] - m->ys[lo]) * (x - m->xs[lo]) / (m->xs[hi] - m->xs[lo]);
}

double model_eval(const struct model *m, double x)
{
	const double *b = m->b;

	switch (m->kind) {
	case MODEL_CONSTANT:
		return b[0];
	case MODEL_LINEAR:
		return b[0] + b[1] * x;
	case MODEL_LOGARITHMIC:
		return x > 0 ? b[0] + b[1] * log(x) : NAN;
	case MODEL_QUADRATIC:
		return b[0] + b[1] * x + b[2] * x * x;
	case MODEL_POWER:
		return x >= 0 ? b[0] * pow(x, b[1]) : NAN;
	case MODEL_EXPONENTIAL:
		return b[0] * pow(b[1], x);
	default:
		return eval_points(m, x);
	}
}

double model_integral(const struct model *m, double a, double b)
{
	const int panels = 256;
	double h = (b - a) / panels, sum = model_eval(m, a) + model_eval(m, b);

	for (int i = 1; i < panels; i++)
		sum += (i % 2 ? 4 : 2) * model_eval(m, a + i * h);
	return sum * h / 3;
}

size_t models_find_uid(const struct model_set *s, const char *uid)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(s->v[mid].uid, uid) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && strcmp(s->v[lo].uid, uid) == 0 ? lo : s->n;
}

const struct model *models_best_at(const struct model_set *s, size_t first, double x,
				   unsigned kinds)
{
	const struct model *best = NULL;

	for (size_t i = first; i < s->n && strcmp(s->v[i].uid, s->v[first].uid) == 0; i++) {
		const struct model *m = &s->v[i];

		if (x < m->x_start || x > m->x_end || !(kinds & (1u << m->kind)))
			continue;
		if (!best || m->rank > best->rank || (isnan(best->rank) && !isnan(m->rank)))
			best = m;
	}
	return best;
}

unsigned models_kinds(const struct model_set *s, size_t first)
{
	unsigned kinds = 0;

	for (size_t i = first; i < s->n && strcmp(s->v[i].uid, s->v[first].uid) == 0; i++)
		kinds |= 1u << s->v[i].kind;
	return kinds;
}
