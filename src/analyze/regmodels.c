/*
 * The regression models. Every fit is least squares. Each gets two r²:
 * ours, measured on the original y for every model, and Perun's (power and
 * exponential in the log space they are fitted in, the constant derived
 * from the linear fit), by which the methods pick the best model so that
 * they pick what Perun picks on the same data.
 *
 * Speed matters (a million points in a fraction of a second): each model
 * makes two or three passes over plain arrays, and the logarithms of x and
 * y are computed once per point set, not once per model.
 */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/regmodels.h"
#include "util/common.h"

static const char *const model_names[REG_NMODELS] = {
	"constant", "linear", "logarithmic", "quadratic", "power", "exponential",
};

struct reg_work {
	double *lnx, *lny;
	size_t cap;
	struct reg_point *sub; /* the points a log-space model can take */
	double *sub_lnx, *sub_lny;
	size_t sub_cap;
};

/* What every model needs to know about the points, found in one pass. */
struct pointset {
	const struct reg_point *pts;
	size_t n;
	size_t ndistinct; /* distinct x, counted up to 3 */
	double xmin, xmax, xmean, ymean, sst;
	bool xpos, ypos; /* every x (y) > 0 */
	const double *lnx, *lny;
};

/* A line y = b0 + b1·x through strided arrays. */
struct strided {
	const double *v;
	size_t stride;
};

struct reg_work *reg_work_new(void)
{
	/* GSL's default handler aborts; a singular system is an answer here. */
	gsl_set_error_handler_off();
	return xcalloc(1, sizeof(struct reg_work));
}

void reg_work_free(struct reg_work *w)
{
	if (!w)
		return;
	free(w->lnx);
	free(w->lny);
	free(w->sub);
	free(w->sub_lnx);
	free(w->sub_lny);
	free(w);
}

const char *reg_model_name(enum reg_model m)
{
	return m < REG_NMODELS ? model_names[m] : "?";
}

int reg_model_from_name(const char *name)
{
	for (int m = 0; m < REG_NMODELS; m++)
		if (strcmp(model_names[m], name) == 0)
			return m;
	return -1;
}

static void scan_points(struct pointset *s)
{
	const struct reg_point *p = s->pts;
	double sx = 0, sy = 0, sst = 0, first = p[0].x, second = NAN;

	s->ndistinct = 1;
	s->xmin = s->xmax = p[0].x;
	s->xpos = s->ypos = true;
	for (size_t i = 0; i < s->n; i++) {
		double x = p[i].x;

		sx += x;
		sy += p[i].y;
		s->xmin = x < s->xmin ? x : s->xmin;
		s->xmax = x > s->xmax ? x : s->xmax;
		s->xpos &= x > 0;
		s->ypos &= p[i].y > 0;
		if (s->ndistinct < 3 && x != first && x != second) {
			second = x;
			s->ndistinct++;
		}
	}
	s->xmean = sx / (double)s->n;
	s->ymean = sy / (double)s->n;
	for (size_t i = 0; i < s->n; i++)
		sst += (p[i].y - s->ymean) * (p[i].y - s->ymean);
	s->sst = sst;
}

static double *grow(double *a, size_t n)
{
	return xrealloc(a, n * sizeof(*a));
}

/* ln x and ln y of every point, when some requested model needs them. */
static void take_logs(struct reg_work *w, struct pointset *s, bool need_lnx, bool need_lny)
{
	if (s->n > w->cap) {
		w->lnx = grow(w->lnx, s->n);
		w->lny = grow(w->lny, s->n);
		w->cap = s->n;
	}
	if (need_lnx && s->xpos)
		for (size_t i = 0; i < s->n; i++)
			w->lnx[i] = log(s->pts[i].x);
	if (need_lny && s->ypos)
		for (size_t i = 0; i < s->n; i++)
			w->lny[i] = log(s->pts[i].y);
	s->lnx = w->lnx;
	s->lny = w->lny;
}

static double at(struct strided a, size_t i)
{
	return a.v[i * a.stride];
}

/* The least-squares line through (x, y) from centred sums; false when x has
 * no spread. */
static bool fit_line(struct strided x, struct strided y, size_t n, double *b0, double *b1)
{
	double sx = 0, sy = 0, mx, my, sxx = 0, sxy = 0;

	for (size_t i = 0; i < n; i++) {
		sx += at(x, i);
		sy += at(y, i);
	}
	mx = sx / (double)n;
	my = sy / (double)n;
	for (size_t i = 0; i < n; i++) {
		double dx = at(x, i) - mx;

		sxx += dx * dx;
		sxy += dx * (at(y, i) - my);
	}
	if (!(sxx > 0))
		return false;
	*b1 = sxy / sxx;
	*b0 = my - *b1 * mx;
	return true;
}

static double r_square(const struct pointset *s, double sse)
{
	/* Equal y values: every model reproduces them (up to rounding). */
	return s->sst > 0 ? 1 - sse / s->sst : 1;
}

/* Perun's r² where it is 1 - SSE/SST too: with no spread in y (SST = 0)
 * Perun's division by almost zero says nothing, and only the constant,
 * whose r² is derived, describes such points; the others get 0. */
static double r_square_perun(double sse, double sst)
{
	return sst > 0 ? 1 - sse / sst : 0;
}

static bool finish(const struct pointset *s, struct reg_fit *f, double sse)
{
	f->r_square = r_square(s, sse);
	if (f->model != REG_POWER && f->model != REG_EXPONENTIAL && f->model != REG_CONSTANT)
		f->r_square_perun = r_square_perun(sse, s->sst);
	f->x_start = s->xmin;
	f->x_end = s->xmax;
	for (int i = 0; i < f->ncoeffs; i++)
		if (!isfinite(f->coeffs[i]))
			return false;
	return isfinite(f->r_square);
}

static bool fit_constant(const struct pointset *s, struct reg_fit *f)
{
	f->ncoeffs = 1;
	f->coeffs[0] = s->ymean;
	return finish(s, f, s->sst);
}

static struct strided xs_of(const struct pointset *s)
{
	return (struct strided){&s->pts[0].x, 2};
}

static struct strided ys_of(const struct pointset *s)
{
	return (struct strided){&s->pts[0].y, 2};
}

/* linear (x, y) and logarithmic (ln x, y): residuals on the fitted scale. */
static bool fit_straight(const struct pointset *s, struct strided x, struct reg_fit *f)
{
	double b0, b1, sse = 0;

	if (!fit_line(x, ys_of(s), s->n, &b0, &b1))
		return false;
	for (size_t i = 0; i < s->n; i++) {
		double r = s->pts[i].y - b0 - b1 * at(x, i);

		sse += r * r;
	}
	f->ncoeffs = 2;
	f->coeffs[0] = b0;
	f->coeffs[1] = b1;
	return finish(s, f, sse);
}

/* power (ln x, ln y) and exponential (x, ln y): ln y = a + b·x' is fitted;
 * our r² compares exp(a + b·x') with y, Perun's ln y with a + b·x'. */
static bool fit_loglinear(const struct pointset *s, struct strided x, struct reg_fit *f)
{
	struct strided lny = {s->lny, 1};
	double a, b, sse = 0, sse_log = 0, sst_log = 0, mean_log = 0;

	if (!fit_line(x, lny, s->n, &a, &b))
		return false;
	for (size_t i = 0; i < s->n; i++)
		mean_log += s->lny[i] / (double)s->n;
	for (size_t i = 0; i < s->n; i++) {
		double r = s->pts[i].y - exp(a + b * at(x, i)), rl = s->lny[i] - a - b * at(x, i);

		sse += r * r;
		sse_log += rl * rl;
		sst_log += (s->lny[i] - mean_log) * (s->lny[i] - mean_log);
	}
	f->r_square_perun = r_square_perun(sse_log, sst_log);
	f->ncoeffs = 2;
	f->coeffs[0] = exp(a);
	f->coeffs[1] = f->model == REG_POWER ? b : exp(b);
	return finish(s, f, sse);
}

/* Solves the normal equations of y - ȳ = c0 + c1·t + c2·t², t = (x - x̄)/h,
 * with GSL; centring and scaling keep them well conditioned. */
static bool solve_quadratic(const struct pointset *s, double h, double c[3])
{
	double sum[5] = {(double)s->n, 0, 0, 0, 0}, rhs[3] = {0, 0, 0}, gram[9];

	for (size_t i = 0; i < s->n; i++) {
		double t = (s->pts[i].x - s->xmean) / h, t2 = t * t, yc = s->pts[i].y - s->ymean;

		sum[1] += t;
		sum[2] += t2;
		sum[3] += t2 * t;
		sum[4] += t2 * t2;
		rhs[0] += yc;
		rhs[1] += yc * t;
		rhs[2] += yc * t2;
	}
	for (int r = 0; r < 3; r++)
		for (int k = 0; k < 3; k++)
			gram[3 * r + k] = sum[r + k];
	gsl_matrix_view a = gsl_matrix_view_array(gram, 3, 3);
	gsl_vector_view b = gsl_vector_view_array(rhs, 3), x = gsl_vector_view_array(c, 3);

	return gsl_linalg_cholesky_decomp1(&a.matrix) == GSL_SUCCESS &&
	       gsl_linalg_cholesky_solve(&a.matrix, &b.vector, &x.vector) == GSL_SUCCESS;
}

static bool fit_quadratic(const struct pointset *s, struct reg_fit *f)
{
	double h = fmax(s->xmax - s->xmean, s->xmean - s->xmin), c[3], sse = 0, m = s->xmean;

	if (s->ndistinct < 3 || !(h > 0) || !solve_quadratic(s, h, c))
		return false;
	for (size_t i = 0; i < s->n; i++) {
		double t = (s->pts[i].x - m) / h;
		double r = s->pts[i].y - s->ymean - (c[0] + c[1] * t + c[2] * t * t);

		sse += r * r;
	}
	/* Back to powers of x: t = (x - m)/h. */
	f->ncoeffs = 3;
	f->coeffs[0] = s->ymean + c[0] - c[1] * m / h + c[2] * (m / h) * (m / h);
	f->coeffs[1] = c[1] / h - 2 * c[2] * m / (h * h);
	f->coeffs[2] = c[2] / (h * h);
	return finish(s, f, sse);
}

static bool fit_one(const struct pointset *s, enum reg_model m, struct reg_fit *f)
{
	struct strided lnx = {s->lnx, 1};

	f->model = m;
	if (m != REG_CONSTANT && s->ndistinct < 2)
		return false;
	switch (m) {
	case REG_CONSTANT:
		return fit_constant(s, f);
	case REG_LINEAR:
		return fit_straight(s, xs_of(s), f);
	case REG_LOGARITHMIC:
		return fit_straight(s, lnx, f);
	case REG_QUADRATIC:
		return fit_quadratic(s, f);
	case REG_POWER:
		return fit_loglinear(s, lnx, f);
	case REG_EXPONENTIAL:
		return fit_loglinear(s, xs_of(s), f);
	default:
		return false;
	}
}

/* Whether model @m can take point @p: its logarithms must exist. */
static bool takes(enum reg_model m, const struct reg_point *p)
{
	bool x_ok = p->x > 0, y_ok = p->y > 0;

	return m == REG_LOGARITHMIC   ? x_ok
	       : m == REG_POWER	      ? x_ok && y_ok
	       : m == REG_EXPONENTIAL ? y_ok
				      : true;
}

/* The points of @s that model @m takes, as a point set of their own (in
 * @w's scratch), with their logarithms; @s itself when it takes them all. */
static const struct pointset *points_for(struct reg_work *w, const struct pointset *s,
					 enum reg_model m, struct pointset *sub)
{
	bool all = m == REG_LOGARITHMIC	  ? s->xpos
		   : m == REG_POWER	  ? s->xpos && s->ypos
		   : m == REG_EXPONENTIAL ? s->ypos
					  : true;
	size_t n = 0;

	if (all)
		return s;
	if (s->n > w->sub_cap) {
		w->sub = xrealloc(w->sub, s->n * sizeof(*w->sub));
		w->sub_lnx = grow(w->sub_lnx, s->n);
		w->sub_lny = grow(w->sub_lny, s->n);
		w->sub_cap = s->n;
	}
	for (size_t i = 0; i < s->n; i++) {
		if (!takes(m, &s->pts[i]))
			continue;
		/* Logs of the positive ones only; the model uses no other. */
		w->sub_lnx[n] = s->pts[i].x > 0 ? log(s->pts[i].x) : NAN;
		w->sub_lny[n] = s->pts[i].y > 0 ? log(s->pts[i].y) : NAN;
		w->sub[n++] = s->pts[i];
	}
	*sub = (struct pointset){.pts = w->sub, .n = n};
	if (n == 0)
		return sub;
	scan_points(sub);
	sub->lnx = w->sub_lnx;
	sub->lny = w->sub_lny;
	return sub;
}

/*
 * Perun derives the constant model's r² from the linear fit: from the
 * angle of the fitted line's rise over the x range (atan2 in radians, over
 * 90, as Perun has it) a nearly flat line gives 1 - r²(linear), a rising
 * one r²(linear)·(1 - angle/90). So on flat, noisy data the constant is
 * Perun's best model. One distinct x: no line, and the constant is all
 * there is (1).
 */
static double constant_r_square_perun(const struct pointset *s)
{
	struct reg_fit lin = {.model = REG_LINEAR};
	double slope, r;

	if (s->ndistinct < 2 || !fit_straight(s, xs_of(s), &lin))
		return 1;
	slope = atan2(fabs(lin.coeffs[1] * s->xmax), fabs(s->xmax - s->xmin)) / 90;
	r = slope > 0.01 ? lin.r_square_perun * (1 - slope) : 1 - lin.r_square_perun;
	return r > 1 ? 1 : r < 0 ? 0 : r;
}

size_t reg_fit_models(struct reg_work *w, unsigned mask, const struct reg_point *pts, size_t n,
		      struct reg_fit *out)
{
	struct pointset s = {.pts = pts, .n = n};
	const unsigned want_lnx = 1u << REG_LOGARITHMIC | 1u << REG_POWER;
	const unsigned want_lny = 1u << REG_POWER | 1u << REG_EXPONENTIAL;
	size_t nfit = 0;

	if (n == 0)
		return 0;
	scan_points(&s);
	take_logs(w, &s, mask & want_lnx, mask & want_lny);
	for (int m = 0; m < REG_NMODELS; m++) {
		struct pointset sub;
		const struct pointset *on;

		if (!(mask & (1u << m)))
			continue;
		memset(&out[nfit], 0, sizeof(out[nfit]));
		on = points_for(w, &s, m, &sub);
		out[nfit].skipped = n - on->n;
		if (on->n == 0 || !fit_one(on, m, &out[nfit]))
			continue;
		if (m == REG_CONSTANT)
			out[nfit].r_square_perun = constant_r_square_perun(&s);
		nfit++;
	}
	return nfit;
}
