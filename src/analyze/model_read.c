/*
 * The one reader of a profile's "models" list (docs/models.md): every
 * model object into a struct model_rec, as written. The checks derive
 * their struct model from these (models_load), the views draw them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/models.h"
#include "profile/json_sax.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"

static int num_event(struct jsax *j, int ev, double *out)
{
	if (ev == JEV_INT)
		*out = (double)j->i;
	else if (ev == JEV_DBL)
		*out = j->d;
	else if (ev == JEV_NULL)
		*out = NAN;
	else
		return err_set(ERR_INVALID, "%s: a number was expected", j->name);
	return 0;
}

/* [1, 2.5, ...] into a growing array */
static int read_numbers(struct jsax *j, double **out, size_t *n)
{
	size_t cap = 0;
	int ev = jsax_next(j);

	if (ev != JEV_ARR_START)
		return ev < 0 ? ev : err_set(ERR_INVALID, "%s: a list was expected", j->name);
	free(*out);
	*out = NULL;
	*n = 0;
	while ((ev = jsax_next(j)) != JEV_ARR_END) {
		if (ev < 0)
			return ev;
		XGROW(*out, *n + 1, cap);
		if (num_event(j, ev, &(*out)[(*n)++]) < 0)
			return ERR_INVALID;
	}
	return 0;
}

/* [{"name": "b0", "value": 1.5}, ...] */
static int read_coeffs(struct jsax *j, struct model_rec *m)
{
	int ev = jsax_next(j);

	if (ev != JEV_ARR_START)
		return ev < 0 ? ev : err_set(ERR_INVALID, "%s: coeffs is not a list", j->name);
	while ((ev = jsax_next(j)) == JEV_OBJ_START) {
		char *name = NULL;
		double v = NAN;

		while ((ev = jsax_next(j)) == JEV_KEY) {
			bool is_name = j->slen == 4 && !memcmp(j->s, "name", 4);
			bool is_value = j->slen == 5 && !memcmp(j->s, "value", 5);

			ev = jsax_next(j);
			if (is_name && ev == JEV_STR) {
				free(name);
				name = xstrndup(j->s, j->slen);
			} else if (is_value) {
				if (num_event(j, ev, &v) < 0)
					break;
			} else if (jsax_skip(j, ev) < 0) {
				break;
			}
		}
		if (ev != JEV_OBJ_END || m->ncoeffs == ARRAY_SIZE(m->coeffs)) {
			free(name);
			return ev < 0 ? ev : err_set(ERR_INVALID, "%s: bad coeffs", j->name);
		}
		m->coeff_names[m->ncoeffs] = name ? name : xstrdup("");
		m->coeffs[m->ncoeffs++] = v;
	}
	return ev == JEV_ARR_END ? 0
	       : ev < 0		 ? ev
				 : err_set(ERR_INVALID, "%s: bad coeffs", j->name);
}

static int read_member(struct jsax *j, const char *key, struct model_rec *m)
{
	static const char *const strs[] = {"uid",    "model",	"method",
					   "of_key", "per_key", "subtype"};
	char **dst[] = {&m->uid, &m->kind, &m->method, &m->of_key, &m->per_key, &m->subtype};
	static const char *const nums[] = {"r_square", "r_square_perun", "x_start", "x_end"};
	double *ndst[] = {&m->r_square, &m->r_square_perun, &m->x_start, &m->x_end};
	size_t i;
	int ev;

	if (strcmp(key, "coeffs") == 0)
		return read_coeffs(j, m);
	if (strcmp(key, "x_values") == 0)
		return read_numbers(j, &m->xs, &m->nxs);
	/* kernel_stats: what Perun's kernel regression once wrote. */
	if (strcmp(key, "bucket_stats") == 0 || (strcmp(key, "kernel_stats") == 0 && !m->ys))
		return read_numbers(j, &m->ys, &m->nys);
	ev = jsax_next(j);
	if (ev < 0)
		return ev;
	for (i = 0; i < ARRAY_SIZE(strs); i++)
		if (strcmp(key, strs[i]) == 0 && ev == JEV_STR) {
			free(*dst[i]);
			*dst[i] = xstrndup(j->s, j->slen);
			return 0;
		}
	for (i = 0; i < ARRAY_SIZE(nums); i++)
		if (strcmp(key, nums[i]) == 0)
			return num_event(j, ev, ndst[i]);
	return jsax_skip(j, ev);
}

static int parse_one(const char *raw, size_t len, struct model_rec *m)
{
	struct jsax j;
	int ev, ret = 0;

	m->r_square = m->r_square_perun = m->x_start = m->x_end = NAN;
	jsax_init_mem(&j, raw, len, "models");
	ev = jsax_next(&j); /* the object's start */
	while (ret == 0 && (ev = jsax_next(&j)) == JEV_KEY) {
		char *key = xstrndup(j.s, j.slen);

		ret = read_member(&j, key, m);
		free(key);
	}
	jsax_release(&j);
	if (ret == 0 && ev < 0)
		ret = ev;
	if (ret == 0 && (!m->uid || !m->kind))
		ret = err_set(ERR_INVALID, "models: a model without uid or model");
	/* The points: x_values with bucket_stats, or bucket_stats alone. */
	m->n = m->xs && m->nxs < m->nys ? m->nxs : m->nys;
	return ret;
}

static void rec_release(struct model_rec *m)
{
	free(m->uid);
	free(m->kind);
	free(m->method);
	free(m->of_key);
	free(m->per_key);
	free(m->subtype);
	free(m->xs);
	free(m->ys);
	for (size_t k = 0; k < m->ncoeffs; k++)
		free(m->coeff_names[k]);
	memset(m, 0, sizeof(*m));
}

int model_recs_read(const char *json, int flags, struct model_rec **out, size_t *n)
{
	struct buf raw = BUF_INIT;
	struct jsax j;
	size_t cap = 0;
	int ev, ret = 0;

	*out = NULL;
	*n = 0;
	if (!json)
		return 0;
	jsax_init_mem(&j, json, strlen(json), "models");
	ev = jsax_next(&j);
	if (ev == JEV_NULL)
		ev = JEV_ARR_END;
	else if (ev != JEV_ARR_START)
		ret = ev < 0 ? ev : err_set(ERR_INVALID, "models: not a list");
	while (ret == 0 && ev != JEV_ARR_END && (ev = jsax_next(&j)) != JEV_ARR_END) {
		if (ev != JEV_OBJ_START && !(flags & MODELS_SKIP_BAD)) {
			ret = ev < 0 ? ev
				     : err_set(ERR_INVALID, "models: a model is not an object");
			break;
		}
		buf_reset(&raw);
		ret = jsax_capture(&j, ev, &raw);
		if (ret < 0 || ev != JEV_OBJ_START)
			continue;
		XGROW(*out, *n + 1, cap);
		memset(&(*out)[*n], 0, sizeof(**out));
		ret = parse_one(buf_str(&raw), raw.len, &(*out)[*n]);
		if (ret < 0 && (flags & MODELS_SKIP_BAD)) {
			rec_release(&(*out)[*n]);
			ret = 0;
			continue;
		}
		(*n)++;
	}
	jsax_release(&j);
	buf_release(&raw);
	if (ret < 0) {
		model_recs_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return ret < 0 ? ret : 0;
}

void model_recs_free(struct model_rec *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rec_release(&m[i]);
	free(m);
}
