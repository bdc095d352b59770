/*
 * The regression methods: full, iterative, interval, initial_guess and
 * bisection, each choosing which models to fit on which points. Their exact
 * rules are in docs/postprocess/regression-analysis.md.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/regmodels.h"
#include "util/common.h"

/* Deep enough for any sensible data; stops adversarial spacing of x from
 * recursing once per point. */
#define BISECT_MAX_DEPTH 32

static const char *const method_names[REG_NMETHODS] = {
	"full", "iterative", "interval", "initial_guess", "bisection",
};

struct run {
	struct reg_work *w;
	unsigned mask, steps;
	reg_emit_fn emit;
	void *ctx;
	size_t nemitted;
};

const char *reg_method_name(enum reg_method m)
{
	return m < REG_NMETHODS ? method_names[m] : "?";
}

int reg_method_from_name(const char *name)
{
	for (int m = 0; m < REG_NMETHODS; m++)
		if (strcmp(method_names[m], name) == 0)
			return m;
	return -1;
}

static int by_x(const void *a, const void *b)
{
	const struct reg_point *p = a, *q = b;

	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	return (p->y > q->y) - (p->y < q->y);
}

static void emit(struct run *r, const struct reg_fit *f)
{
	r->emit(r->ctx, f);
	r->nemitted++;
}

/* The fit with the largest r² as Perun measures it (the first in model
 * order on a tie), so the best model is the one Perun would pick. */
static const struct reg_fit *best_of(const struct reg_fit *fits, size_t n)
{
	const struct reg_fit *best = n ? &fits[0] : NULL;

	for (size_t i = 1; i < n; i++)
		if (fits[i].r_square_perun > best->r_square_perun)
			best = &fits[i];
	return best;
}

/* Fits @mask on the points and reports the best; false when none fits. */
static bool emit_best(struct run *r, unsigned mask, const struct reg_point *pts, size_t n)
{
	struct reg_fit fits[REG_NMODELS];
	size_t nf = reg_fit_models(r->w, mask, pts, n, fits);
	const struct reg_fit *best = best_of(fits, nf);

	if (best)
		emit(r, best);
	return best != NULL;
}

static void run_full(struct run *r, const struct reg_point *pts, size_t n)
{
	struct reg_fit fits[REG_NMODELS];
	size_t k = reg_fit_models(r->w, r->mask, pts, n, fits);

	for (size_t i = 0; i < k; i++)
		emit(r, &fits[i]);
}

static unsigned count_bits(unsigned v)
{
	unsigned c = 0;

	for (; v; v &= v - 1)
		c++;
	return c;
}

/* Fits the surviving models on a growing prefix (k/steps of the points),
 * dropping the worst each time, then reports the best on all points. */
static void run_iterative(struct run *r, const struct reg_point *pts, size_t n)
{
	struct reg_fit fits[REG_NMODELS];
	unsigned alive = r->mask;

	for (unsigned k = 1; k < r->steps && count_bits(alive) > 1; k++) {
		size_t m = n * k / r->steps, nf = reg_fit_models(r->w, alive, pts, m, fits);
		const struct reg_fit *worst = nf >= 2 ? &fits[0] : NULL;

		for (size_t i = 1; i < nf; i++)
			if (fits[i].r_square_perun < worst->r_square_perun)
				worst = &fits[i];
		if (worst)
			alive &= ~(1u << worst->model);
	}
	if (!emit_best(r, alive, pts, n))
		emit_best(r, r->mask, pts, n);
}

/* Every model on each of @steps equal x-intervals (the last one closed). */
static void run_interval(struct run *r, const struct reg_point *pts, size_t n)
{
	double lo = pts[0].x, width = (pts[n - 1].x - lo) / r->steps;
	unsigned parts = width > 0 ? r->steps : 1;
	size_t start = 0;

	for (unsigned i = 0; i < parts; i++) {
		double a = lo + i * width, b = i + 1 == parts ? pts[n - 1].x : lo + (i + 1) * width;
		size_t end = start;
		struct reg_fit fits[REG_NMODELS];

		while (end < n && (pts[end].x < b || i + 1 == parts))
			end++;
		for (size_t k = reg_fit_models(r->w, r->mask, pts + start, end - start, fits),
			    j = 0;
		     j < k; j++) {
			fits[j].x_start = a;
			fits[j].x_end = b;
			emit(r, &fits[j]);
		}
		start = end;
	}
}

/* The best model on an even sample of 1/steps of the points, refitted on
 * all of them. */
static void run_initial_guess(struct run *r, const struct reg_point *pts, size_t n)
{
	size_t m = (n + r->steps - 1) / r->steps, nf;
	struct reg_point *sample = xmalloc(m * sizeof(*sample));
	struct reg_fit fits[REG_NMODELS];
	const struct reg_fit *best;

	for (size_t j = 0; j < m; j++)
		sample[j] = pts[j * n / m];
	nf = reg_fit_models(r->w, r->mask, sample, m, fits);
	best = best_of(fits, nf);
	if (!best || !emit_best(r, 1u << best->model, pts, n))
		emit_best(r, r->mask, pts, n);
	free(sample);
}

static int best_model(struct run *r, const struct reg_point *pts, size_t n)
{
	struct reg_fit fits[REG_NMODELS];
	size_t nf = reg_fit_models(r->w, r->mask, pts, n, fits);
	const struct reg_fit *best = best_of(fits, nf);

	return best ? (int)best->model : -1;
}

/* The first point at or past @x in sorted points. */
static size_t lower_bound(const struct reg_point *pts, size_t n, double x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pts[mid].x < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Reports the best model of [a, b], or of each half when the halves'
 * best models differ from it. */
static void bisect(struct run *r, const struct reg_point *pts, size_t n, double a, double b,
		   int depth)
{
	struct reg_fit fits[REG_NMODELS];
	size_t nf = reg_fit_models(r->w, r->mask, pts, n, fits);
	const struct reg_fit *best = best_of(fits, nf);
	double mid = a + (b - a) / 2;
	size_t k = lower_bound(pts, n, mid);

	if (!best)
		return;
	if (depth < BISECT_MAX_DEPTH && k >= REG_BISECT_MIN && n - k >= REG_BISECT_MIN) {
		int left = best_model(r, pts, k), right = best_model(r, pts + k, n - k);

		if ((left >= 0 && left != (int)best->model) ||
		    (right >= 0 && right != (int)best->model)) {
			bisect(r, pts, k, a, mid, depth + 1);
			bisect(r, pts + k, n - k, mid, b, depth + 1);
			return;
		}
	}
	struct reg_fit part = *best;

	part.x_start = a;
	part.x_end = b;
	emit(r, &part);
}

size_t reg_run_method(struct reg_work *w, enum reg_method method, unsigned mask, unsigned steps,
		      struct reg_point *pts, size_t n, reg_emit_fn fn, void *ctx)
{
	struct run r = {w, mask, steps ? steps : 1, fn, ctx, 0};

	if (n == 0 || mask == 0)
		return 0;
	if (method != REG_FULL)
		qsort(pts, n, sizeof(*pts), by_x);
	switch (method) {
	case REG_FULL:
		run_full(&r, pts, n);
		break;
	case REG_ITERATIVE:
		run_iterative(&r, pts, n);
		break;
	case REG_INTERVAL:
		run_interval(&r, pts, n);
		break;
	case REG_INITIAL_GUESS:
		run_initial_guess(&r, pts, n);
		break;
	case REG_BISECTION:
		bisect(&r, pts, n, pts[0].x, pts[n - 1].x, 0);
		break;
	default:
		break;
	}
	return r.nemitted;
}
