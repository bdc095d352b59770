/* Points per uid and the model object of the smoothing postprocessors. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/models.h"
#include "analyze/postproc.h"
#include "analyze/series.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/optparse.h"
#include "util/strpool.h"

void series_keys_init(struct series_keys *k)
{
	k->of = xstrdup("amount");
	k->per = xstrdup("structure-unit-size");
}

void series_keys_free(struct series_keys *k)
{
	free(k->of);
	free(k->per);
}

void series_keys_table(struct series_keys *k, struct opt *t)
{
	const struct opt opts[SERIES_KEYS_NOPTS] = {
		OPT_STRING(0, "of", &k->of_arg, "KEY", "the value fitted (default: amount)"),
		OPT_STRING(0, "per", &k->per_arg, "KEY",
			   "the independent variable (default: structure-unit-size);\n"
			   "--depending-on is the same"),
		OPT_STRING(0, "depending-on", &k->per_arg, NULL, NULL),
		OPT_ALIAS("of-key", "of"),
		OPT_ALIAS("per-key", "per"),
		OPT_DASH_ALIAS("of", "of"),
		OPT_DASH_ALIAS("per", "per"),
		OPT_DASH_ALIAS("dp", "depending-on"),
		OPT_END(),
	};

	memcpy(t, opts, sizeof(opts));
}

void series_keys_take(struct series_keys *k)
{
	if (k->of_arg) {
		free(k->of);
		k->of = xstrdup(k->of_arg);
	}
	if (k->per_arg) {
		free(k->per);
		k->per = xstrdup(k->per_arg);
	}
	k->of_arg = k->per_arg = NULL;
}

void series_keys_json(const struct series_keys *k, struct buf *b, bool *first)
{
	pp_json_str(b, first, "of", k->of);
	pp_json_str(b, first, "per", k->per);
}

struct point {
	double x, y;
	size_t row; /* keeps the sort stable */
};

static int point_cmp(const void *a, const void *b)
{
	const struct point *p = a, *q = b;

	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	return p->row < q->row ? -1 : p->row > q->row;
}

static double row_num(const struct profile *p, size_t row, const char *key)
{
	size_t at;
	const struct column *c = profile_attr(p, row, key, NULL, &at);

	return c ? col_num(c, at) : NAN;
}

/* Splits @pts (in row order, @uid[i] the group of each) into sorted series. */
static void series_split(struct series_set *set, const struct point *pts, const uint32_t *uid,
			 size_t npts)
{
	size_t ngroups = strpool_count(set->uids), *count = xcalloc(ngroups, sizeof(*count));
	struct point **at = xcalloc(ngroups, sizeof(*at)),
		     *sorted = xmalloc((npts + 1) * sizeof(*sorted));
	size_t off = 0;

	for (size_t i = 0; i < npts; i++)
		count[uid[i]]++;
	for (size_t g = 0; g < ngroups; g++) {
		at[g] = sorted + off;
		off += count[g];
	}
	for (size_t i = 0; i < npts; i++)
		*at[uid[i]]++ = pts[i];
	set->s = xcalloc(ngroups + 1, sizeof(*set->s));
	off = 0;
	for (size_t g = 0; g < ngroups; g++) {
		struct series *s = &set->s[set->n];
		struct point *first = sorted + off;

		off += count[g];
		if (!count[g])
			continue;
		qsort(first, count[g], sizeof(*first), point_cmp);
		s->uid = strpool_get(set->uids, (uint32_t)g);
		/* A key is the uid, then a NUL and the subtype when there is one. */
		if (strpool_len(set->uids, (uint32_t)g) > strlen(s->uid))
			s->subtype = s->uid + strlen(s->uid) + 1;
		s->n = count[g];
		s->x = xmalloc(s->n * sizeof(*s->x));
		s->y = xmalloc(s->n * sizeof(*s->y));
		for (size_t i = 0; i < s->n; i++) {
			s->x[i] = first[i].x;
			s->y[i] = first[i].y;
		}
		set->n++;
	}
	free(count);
	free(at);
	free(sorted);
}

/* As regression analysis does (reggroup.c): a uid whose points come in
 * several subtypes (the time collector's real, user, sys) gets a series,
 * and models, for each, and they name the subtype. */
static void name_subtypes(struct series_set *set)
{
	struct strpool *seen = strpool_new();
	size_t *count = xcalloc(set->n + 1, sizeof(*count));

	for (size_t i = 0; i < set->n; i++)
		count[strpool_intern_cstr(seen, set->s[i].uid)]++;
	for (size_t i = 0; i < set->n; i++) {
		const char *uid = set->s[i].uid;

		if (count[strpool_find(seen, uid, strlen(uid))] < 2)
			set->s[i].subtype = NULL;
	}
	free(count);
	strpool_free(seen);
}

int series_collect(const struct profile *p, const struct series_keys *k, const char *pp,
		   struct series_set *out)
{
	size_t n = profile_nres(p), npts = 0;
	struct point *pts = xmalloc((n + 1) * sizeof(*pts));
	uint32_t *uid = xmalloc((n + 1) * sizeof(*uid));
	struct buf scratch = BUF_INIT, key = BUF_INIT;

	memset(out, 0, sizeof(*out));
	out->uids = strpool_new();
	for (size_t r = 0; r < n; r++) {
		double x = row_num(p, r, k->per), y = row_num(p, r, k->of);

		if (!isfinite(x) || !isfinite(y))
			continue;
		profile_group_key(p, r, &key, &scratch);
		uid[npts] = strpool_intern(out->uids, buf_str(&key), key.len);
		pts[npts++] = (struct point){x, y, r};
	}
	buf_release(&scratch);
	buf_release(&key);
	if (npts == 0 && n > 0) {
		free(pts);
		free(uid);
		series_set_free(out);
		return err_set(ERR_INVALID,
			       "postprocess %s: no resource has both '%s' and '%s' as numbers", pp,
			       k->per, k->of);
	}
	series_split(out, pts, uid, npts);
	name_subtypes(out);
	free(pts);
	free(uid);
	return 0;
}

void series_set_free(struct series_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		free(set->s[i].x);
		free(set->s[i].y);
	}
	free(set->s);
	strpool_free(set->uids);
	memset(set, 0, sizeof(*set));
}

double series_r_square(const double *y, const double *fit, size_t n)
{
	double mean = 0, ss_tot = 0, ss_res = 0;
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		if (!isnan(fit[i])) {
			mean += y[i];
			m++;
		}
	}
	if (m == 0)
		return NAN;
	mean /= (double)m;
	for (size_t i = 0; i < n; i++) {
		if (isnan(fit[i]))
			continue;
		ss_tot += (y[i] - mean) * (y[i] - mean);
		ss_res += (y[i] - fit[i]) * (y[i] - fit[i]);
	}
	if (ss_tot == 0)
		return ss_res == 0 ? 1.0 : 0.0;
	return 1.0 - ss_res / ss_tot;
}

void model_begin(struct buf *b, const struct series *s, const struct series_keys *k,
		 const char *model, const char *method, double x_start, double x_end)
{
	bool first = true;

	buf_reset(b);
	buf_addc(b, '{');
	pp_json_str(b, &first, "uid", s->uid);
	if (s->subtype)
		pp_json_str(b, &first, "subtype", s->subtype);
	pp_json_str(b, &first, "model", model);
	pp_json_str(b, &first, "method", method);
	pp_json_str(b, &first, "of_key", k->of);
	pp_json_str(b, &first, "per_key", k->per);
	pp_json_num(b, &first, "x_start", x_start);
	pp_json_num(b, &first, "x_end", x_end);
}

static void num_array(struct buf *b, const char *key, const double *v, const double *y, size_t n)
{
	bool first = true;

	buf_addf(b, ",\"%s\":[", key);
	for (size_t i = 0; i < n; i++) {
		if (isnan(y[i]))
			continue;
		buf_addf(b, first ? "%.17g" : ",%.17g", v[i]);
		first = false;
	}
	buf_addc(b, ']');
}

void model_end(struct buf *models, struct buf *b, const double *x, const double *y, size_t n,
	       double r_square)
{
	bool first = false;

	num_array(b, "x_values", x, y, n);
	num_array(b, "bucket_stats", y, y, n);
	pp_json_num(b, &first, "r_square", r_square);
	buf_addc(b, '}');
	if (models->len)
		buf_addc(models, ',');
	buf_adds(models, buf_str(b));
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void series_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), dbl_cmp);
}

int series_run_each(struct profile *p, const struct series_keys *k, const char *pp,
		    series_fit_fn one, const void *opts)
{
	struct series_set set;
	struct buf models = BUF_INIT, scratch = BUF_INIT;
	int ret = series_collect(p, k, pp, &set);

	if (ret < 0)
		return ret;
	for (size_t i = 0; i < set.n && ret == 0; i++)
		ret = one(opts, &set.s[i], &models, &scratch);
	if (ret == 0)
		ret = models_append(p, models.data, models.len);
	buf_release(&models);
	buf_release(&scratch);
	series_set_free(&set);
	return ret;
}
