/* The series of one metric across versions, and where each shifted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/changepoint.h"
#include "analyze/history.h"
#include "analyze/profile_config.h"
#include "analyze/samples.h"
#include "analyze/stats.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"

size_t history_add_version(struct history *h, const char *id, const char *label, int64_t time,
			   const char *summary)
{
	struct history_version *v;

	h->versions = xgrow(h->versions, sizeof(*h->versions), h->nversions + 1, &h->vcap);
	v = &h->versions[h->nversions];
	memset(v, 0, sizeof(*v));
	snprintf(v->id, sizeof(v->id), "%s", id);
	snprintf(v->label, sizeof(v->label), "%s", label ? label : id);
	v->time = time;
	v->summary = xstrdup(summary ? summary : "");
	return h->nversions++;
}

static bool matches(const char *location, const char *match)
{
	return !*match || strstr(location, match) != NULL;
}

static struct history_series *series_for(struct history *h, const struct profile *p,
					 const char *key, const char *location)
{
	char *full = xasprintf("%s\x1f%s", key, location);
	bool added;
	size_t i = strmap_intern(&h->index, full, &added);
	const char *unit = p->type ? profile_units(p, p->type) : NULL;

	free(full);
	if (added) {
		struct history_series *s;

		h->s = xrealloc(h->s, (h->ns + 1) * sizeof(*h->s));
		s = &h->s[h->ns++];
		memset(s, 0, sizeof(*s));
		s->title = profile_config_title(p);
		s->title_full = profile_config_title_full(p);
		s->location = xstrdup(location);
		s->unit = xstrdup(unit ? unit : "");
	}
	return &h->s[i];
}

static void add_point(struct history_series *s, size_t version, const struct sample_group *g)
{
	struct stats sum;
	struct history_point *pt;

	if (s->n && s->pts[s->n - 1].version == version)
		s->n--;
	s->pts = xgrow(s->pts, sizeof(*s->pts), s->n + 1, &s->cap);
	stats_compute(g->v, g->n, &sum);
	pt = &s->pts[s->n++];
	*pt = (struct history_point){version, sum.median, sum.q1, sum.q3, sum.n, false, NAN};
}

int history_add_profile(struct history *h, size_t v, const struct profile *p, const char *match,
			history_point_fn fn, void *arg)
{
	struct sample_set set;
	char *key = NULL;
	int ret = 0;

	samples_build(p, NULL, &set);
	for (size_t g = 0; g < set.n && ret == 0; g++) {
		struct history_series *s;

		if (!matches(set.g[g].location, match))
			continue;
		if (!key)
			key = profile_config_key(p);
		s = series_for(h, p, key, set.g[g].location);
		add_point(s, v, &set.g[g]);
		if (fn)
			ret = fn(arg, h, (size_t)(s - h->s), p);
	}
	free(key);
	samples_free(&set);
	return ret;
}

/*
 * The typical relative standard error of a version's median, from its own
 * runs: the IQR as a robust sigma (IQR / 1.349), and the median's error
 * about 1.2533 sigma / sqrt(n). Shifts within that are noise however few
 * versions the series has.
 */
static double median_rel_error(const struct history_series *s)
{
	double *e = xcalloc(s->n ? s->n : 1, sizeof(*e)), m;
	size_t k = 0;

	for (size_t i = 0; i < s->n; i++)
		if (s->pts[i].median > 0 && s->pts[i].n > 1)
			e[k++] = 1.2533 * (s->pts[i].q3 - s->pts[i].q1) / 1.349 / s->pts[i].median /
				 sqrt((double)s->pts[i].n);
	m = k ? stats_median_sort(e, k) : 0;
	free(e);
	return m;
}

static void mark_changes(struct history_series *s)
{
	double *y = xcalloc(s->n ? s->n : 1, sizeof(*y));
	double *fit = xcalloc(s->n ? s->n : 1, sizeof(*fit));
	bool *c = xcalloc(s->n ? s->n : 1, sizeof(*c));
	bool positive = true;

	for (size_t i = 0; i < s->n; i++)
		positive = positive && s->pts[i].median > 0;
	/* Run times: in log space, where noise is relative; a shift from 10 to
	 * 11 ms is the same as one from 100 to 110. */
	for (size_t i = 0; i < s->n; i++)
		y[i] = positive ? log(s->pts[i].median) : s->pts[i].median;
	if (positive)
		changepoint_pelt(y, s->n, median_rel_error(s), log1p(HISTORY_MIN_STEP), c, fit);
	else
		changepoint_pelt(y, s->n, 0, HISTORY_MIN_STEP * fabs(stats_mean(y, s->n)), c, fit);
	/* The shift shown is the step the detector judged: between the means
	 * of the segments on either side (geometric means for run times). */
	for (size_t i = 0; i < s->n; i++) {
		s->pts[i].change = c[i];
		if (c[i])
			s->pts[i].shift = positive ? expm1(fit[i] - fit[i - 1])
						   : (fit[i] - fit[i - 1]) / fabs(fit[i - 1]);
	}
	free(y);
	free(fit);
	free(c);
}

void history_finish(struct history *h)
{
	for (size_t i = 0; i < h->ns; i++)
		mark_changes(&h->s[i]);
}

void history_free(struct history *h)
{
	for (size_t i = 0; i < h->ns; i++) {
		free(h->s[i].title);
		free(h->s[i].title_full);
		free(h->s[i].location);
		free(h->s[i].unit);
		free(h->s[i].pts);
	}
	for (size_t i = 0; i < h->nversions; i++)
		free(h->versions[i].summary);
	free(h->s);
	free(h->versions);
	strmap_free(&h->index);
	memset(h, 0, sizeof(*h));
}

static void json_member(struct buf *b, const char *key, const char *s, bool first)
{
	buf_addf(b, "%s\"%s\":", first ? "" : ",", key);
	buf_add_json_str(b, s, strlen(s));
}

/* A number JSON can hold: NaN and infinities are null. */
static void json_num(struct buf *b, const char *key, double v)
{
	buf_addf(b, ",\"%s\":", key);
	if (isfinite(v))
		buf_addf(b, "%.17g", v);
	else
		buf_adds(b, "null");
}

void history_series_json(const struct history *h, struct buf *out)
{
	buf_addc(out, '[');
	for (size_t i = 0; i < h->ns; i++) {
		const struct history_series *s = &h->s[i];

		buf_adds(out, i ? ",{" : "{");
		json_member(out, "config", s->title, true);
		json_member(out, "config_full", s->title_full, false);
		json_member(out, "location", s->location, false);
		json_member(out, "unit", s->unit, false);
		buf_adds(out, ",\"points\":[");
		for (size_t k = 0; k < s->n; k++) {
			const struct history_point *p = &s->pts[k];

			buf_adds(out, k ? ",{" : "{");
			json_member(out, "version", h->versions[p->version].id, true);
			json_num(out, "median", p->median);
			json_num(out, "q1", p->q1);
			json_num(out, "q3", p->q3);
			buf_addf(out, ",\"n\":%zu,\"change_point\":%s", p->n,
				 p->change ? "true" : "false");
			if (p->change && isfinite(p->shift))
				json_num(out, "shift", p->shift);
			buf_addc(out, '}');
		}
		buf_adds(out, "]}");
	}
	buf_addc(out, ']');
}

void history_versions_json(const struct history *h, struct buf *out)
{
	buf_addc(out, '[');
	for (size_t i = 0; i < h->nversions; i++) {
		const struct history_version *v = &h->versions[i];

		buf_adds(out, i ? ",{" : "{");
		json_member(out, "id", v->id, true);
		json_member(out, "label", v->label, false);
		buf_addf(out, ",\"time\":%lld", (long long)v->time);
		json_member(out, "summary", v->summary, false);
		buf_addc(out, '}');
	}
	buf_addc(out, ']');
}
