/* The models of a profile (docs/models.md, read by analyze/model_read.c):
 * evaluated, sampled into curves, and the scatter view's data step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/json_sax.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/strpool.h"
#include "view/view_priv.h"

#define CURVE_SAMPLES 120

bool view_model_parametric(const struct model_rec *m)
{
	static const char *const kinds[] = {"constant",	 "linear", "logarithmic",
					    "quadratic", "power",  "exponential"};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		if (strcmp(m->kind, kinds[i]) == 0)
			return true;
	return false;
}

static double coeff(const struct model_rec *m, size_t i)
{
	return i < m->ncoeffs ? m->coeffs[i] : 0;
}

/* The formulas of docs/models.md; NaN where the model is not defined. */
double view_model_eval(const struct model_rec *m, double x)
{
	const char *k = m->kind;

	if (strcmp(k, "constant") == 0)
		return coeff(m, 0);
	if (strcmp(k, "linear") == 0)
		return coeff(m, 0) + coeff(m, 1) * x;
	if (strcmp(k, "logarithmic") == 0)
		return x > 0 ? coeff(m, 0) + coeff(m, 1) * log(x) : NAN;
	if (strcmp(k, "quadratic") == 0)
		return coeff(m, 0) + coeff(m, 1) * x + coeff(m, 2) * x * x;
	if (strcmp(k, "power") == 0)
		return x > 0 || coeff(m, 1) >= 0 ? coeff(m, 0) * pow(x, coeff(m, 1)) : NAN;
	if (strcmp(k, "exponential") == 0)
		return coeff(m, 0) * pow(coeff(m, 1), x);
	return NAN;
}

static void curve_add(struct vcurve *c, size_t *cap, double x, double y)
{
	if (c->n == *cap) {
		XGROW(c->x, c->n + 1, *cap);
		XRESIZE(c->y, *cap);
	}
	c->x[c->n] = x;
	c->y[c->n++] = y;
}

/* Point @i's x: its x_value, or without them (Perun writes none) evenly
 * spaced over [x_start, x_end], as the checks place them (a regressogram's
 * buckets start every (x_end - x_start) / n). */
static double point_x(const struct model_rec *m, size_t i, bool steps)
{
	double parts = steps ? (double)m->n : m->n > 1 ? (double)(m->n - 1) : 1;

	if (m->xs)
		return m->xs[i];
	if (i == m->n)
		return m->x_end;
	if (isnan(m->x_start) || isnan(m->x_end))
		return (double)i;
	return m->x_start + (m->x_end - m->x_start) * (double)i / parts;
}

/* Non-parametric: the points as they are; a regressogram as steps. A
 * point without a value (Perun's moving average where its window was
 * short) is left out. */
static void curve_points(const struct model_rec *m, struct vcurve *c, size_t *cap)
{
	bool steps = strcmp(m->kind, "regressogram") == 0;
	size_t i;

	for (i = 0; m->ys && i < m->n; i++) {
		if (isnan(m->ys[i]))
			continue;
		curve_add(c, cap, point_x(m, i, steps), m->ys[i]);
		if (steps) {
			double end = i + 1 < m->n || !m->xs ? point_x(m, i + 1, steps) : m->x_end;

			if (!isnan(end))
				curve_add(c, cap, end, m->ys[i]);
		}
	}
}

void view_model_curve(const struct model_rec *m, double lo, double hi, struct vcurve *c)
{
	struct buf b = BUF_INIT;
	size_t cap = 0, i;
	double a = isnan(m->x_start) ? lo : m->x_start;
	double z = isnan(m->x_end) ? hi : m->x_end;

	memset(c, 0, sizeof(*c));
	buf_addf(&b, "%s", m->kind);
	/* A model of part of the points (interval, bisection) says which. */
	if (!isnan(m->x_start) && !isnan(m->x_end) && (m->x_start > lo || m->x_end < hi))
		buf_addf(&b, " [%g\xe2\x80\x93%g]", m->x_start, m->x_end);
	if (!isnan(m->r_square))
		buf_addf(&b, " (R\xc2\xb2 %.3f)", m->r_square);
	c->label = buf_detach(&b, NULL);
	if (!view_model_parametric(m)) {
		curve_points(m, c, &cap);
		return;
	}
	for (i = 0; i <= CURVE_SAMPLES; i++) {
		double x = a + (z - a) * (double)i / CURVE_SAMPLES;
		double y = view_model_eval(m, x);

		if (isfinite(y))
			curve_add(c, &cap, x, y);
	}
}

/* Does model @m describe this plot's points and axes? A model without a
 * subtype covers every subtype of its uid. */
static bool model_fits(const struct model_rec *m, const char *uid, const char *subtype,
		       const struct view_opts *o, const char *per)
{
	return strcmp(m->uid, uid) == 0 &&
	       (!m->subtype || (subtype && strcmp(m->subtype, subtype) == 0)) &&
	       (!m->of_key || strcmp(m->of_key, o->of) == 0) &&
	       (!m->per_key || strcmp(m->per_key, per) == 0);
}

static void add_model_curves(const struct model_rec *m, size_t nm, const struct view_opts *o,
			     const char *per, const char *uid, const char *subtype,
			     struct vplot *pl)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t i, cap = 0;

	for (i = 0; i < pl->npts; i++) {
		lo = pl->px[i] < lo ? pl->px[i] : lo;
		hi = pl->px[i] > hi ? pl->px[i] : hi;
	}
	for (i = 0; i < nm; i++) {
		if (!model_fits(&m[i], uid, subtype, o, per))
			continue;
		XGROW(pl->curves, pl->ncurves + 1, cap);
		view_model_curve(&m[i], lo, hi, &pl->curves[pl->ncurves]);
		if (pl->curves[pl->ncurves].n)
			pl->ncurves++;
		else
			free(pl->curves[pl->ncurves].label);
	}
}

/* Points (per, of) of one resource group; *cap tracks px/py's room. */
static void plot_add_point(struct vplot *pl, size_t *cap, double x, double y)
{
	if (pl->npts == *cap) {
		XGROW(pl->px, pl->npts + 1, *cap);
		XRESIZE(pl->py, *cap);
	}
	pl->px[pl->npts] = x;
	pl->py[pl->npts++] = y;
}

/* Points are grouped as regression analysis groups them: by uid, and by
 * subtype too (a name "uid\0subtype" in @uids). Each plot's name is pool
 * id (*@keys)[i]: a plot per id, so an empty uid (the pool's id 0, the
 * empty string) is a group like any other. */
static size_t collect_points(const struct profile *p, const struct view_opts *o, const char *per,
			     struct strpool *uids, struct vplot **plots, uint32_t **keys)
{
	struct buf s = BUF_INIT, name = BUF_INIT;
	size_t i, nres = profile_nres(p), nplots = 0, n = 0, *caps = NULL;

	for (i = 0; i < nres; i++) {
		double x, y;
		uint32_t id;

		if (!view_row_matches(p, i, o, &s))
			continue;
		view_value(p, i, per, &s, &x);
		view_value(p, i, o->of, &s, &y);
		if (isnan(x) || isnan(y))
			continue;
		profile_group_key(p, i, &name, &s);
		id = strpool_intern(uids, buf_str(&name), name.len);
		if (id >= nplots) {
			*plots = xrealloc(*plots, ((size_t)id + 1) * sizeof(**plots));
			caps = xrealloc(caps, ((size_t)id + 1) * sizeof(*caps));
			memset(&(*plots)[nplots], 0, ((size_t)id + 1 - nplots) * sizeof(**plots));
			memset(&caps[nplots], 0, ((size_t)id + 1 - nplots) * sizeof(*caps));
			nplots = (size_t)id + 1;
		}
		plot_add_point(&(*plots)[id], &caps[id], x, y);
	}
	/* Id 0 is there whether or not a point had the empty name. */
	*keys = xcalloc(nplots + 1, sizeof(**keys));
	for (i = 0; i < nplots; i++) {
		if (!(*plots)[i].npts)
			continue;
		(*keys)[n] = (uint32_t)i;
		(*plots)[n++] = (*plots)[i];
	}
	if (n < nplots)
		memset(&(*plots)[n], 0, (nplots - n) * sizeof(**plots));
	free(caps);
	buf_release(&s);
	buf_release(&name);
	return n;
}

/* Do the points of @uid come in several subtypes (named "uid\0sub")? */
static bool several_subtypes(const struct strpool *names, const char *uid)
{
	size_t len = strlen(uid), found = 0;

	for (uint32_t k = 0; k < strpool_count(names) && found < 2; k++)
		found += strncmp(strpool_get(names, k), uid, len + 1) == 0;
	return found > 1;
}

int view_build_scatter(const struct profile *p, const struct view_opts *o, struct vfigure *f)
{
	const char *per = o->per ? o->per : "structure-unit-size";
	struct strpool *uids;
	struct model_rec *m;
	size_t nm, i;
	uint32_t *keys = NULL;
	int ret;

	if (!view_has_key(p, o->of) || !view_has_key(p, per))
		return err_set(ERR_NOTFOUND, "the profile has no key '%s'",
			       view_has_key(p, o->of) ? per : o->of);
	ret = model_recs_read(p->models, 0, &m, &nm);
	if (ret < 0)
		return ret;
	uids = strpool_new();
	f->kind = VIEW_SCATTER;
	f->n = collect_points(p, o, per, uids, &f->plots, &keys);
	for (i = 0; i < f->n; i++) {
		struct vplot *pl = &f->plots[i];
		const char *uid = strpool_get(uids, keys[i]);
		const char *subtype = uid + strlen(uid) + 1;
		struct buf title = BUF_INIT;

		if (strpool_len(uids, keys[i]) == strlen(uid))
			subtype = NULL;
		profile_group_label(&title, uid,
				    subtype && several_subtypes(uids, uid) ? subtype : NULL);
		pl->title = buf_detach(&title, NULL);
		pl->xlabel = xstrdup(per);
		pl->ylabel = xstrdup(o->of);
		if (strcmp(o->of, "amount") == 0 && p->nunits == 1) {
			free(pl->ylabel);
			pl->ylabel = xmalloc(strlen(p->units[0].value) + 10);
			snprintf(pl->ylabel, strlen(p->units[0].value) + 10, "amount [%s]",
				 p->units[0].value);
		}
		add_model_curves(m, nm, o, per, uid, subtype, pl);
	}
	free(keys);
	strpool_free(uids);
	model_recs_free(m, nm);
	if (!f->n)
		return err_set(ERR_NOTFOUND, "no resource has numeric '%s' and '%s'", o->of, per);
	f->title = xstrdup(o->title ? o->title : "scatter");
	return 0;
}
