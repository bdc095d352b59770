/*
 * veles log --perf KEY: one metric across the history. For every location
 * matching KEY, in profiles of one configuration, the median and spread
 * per version (oldest first), a sparkline, and the versions where the
 * series shifted (change points).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/changepoint.h"
#include "analyze/envinfo.h"
#include "analyze/samples.h"
#include "analyze/stats.h"
#include "cli/check.h"
#include "cli/cli.h"
#include "cli/envcheck.h"
#include "cli/log.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/strmap.h"
#include "vcs/vcs.h"

/* A shift smaller than this is not called a change point. */
#define LOG_PERF_MIN_STEP 0.02

struct point {
	size_t version; /* index into perf_state.ids, oldest first */
	double median, q1, q3;
	size_t n;
	bool change;
	double shift; /* at a change point: the relative step the detector saw */
};

struct series {
	char *title;	/* the configuration */
	char *location; /* the matching location */
	char *unit;	/* "s", or "" */
	struct point *pts;
	size_t n, cap;
	struct env_info env; /* the last point's environment */
	char env_at[41];     /* and its version */
};

struct perf_state {
	bool strict_env;
	char (*ids)[41]; /* versions, newest first as walked */
	size_t nids, cap;
	struct series *s;
	size_t ns;
	struct strmap index; /* "config \x1f location" -> series */
};

static int remember(const struct vcs_version *v, void *arg)
{
	struct perf_state *st = arg;

	if (st->nids == st->cap) {
		st->cap = st->cap ? 2 * st->cap : 64;
		st->ids = xrealloc(st->ids, st->cap * sizeof(*st->ids));
	}
	memcpy(st->ids[st->nids++], v->id, 41);
	return 0;
}

static bool matches(const char *location, const char *key)
{
	return strcmp(location, key) == 0 || strstr(location, key) != NULL;
}

static struct series *series_for(struct perf_state *st, const struct profile *p, const char *key,
				 const char *location)
{
	char *full = xasprintf("%s\x1f%s", key, location);
	bool added;
	size_t i = strmap_intern(&st->index, full, &added);
	const char *unit = p->type ? profile_units(p, p->type) : NULL;

	free(full);
	if (added) {
		st->s = xrealloc(st->s, (st->ns + 1) * sizeof(*st->s));
		memset(&st->s[st->ns], 0, sizeof(*st->s));
		st->s[st->ns].title = profile_config_title(p);
		st->s[st->ns].location = xstrdup(location);
		st->s[st->ns].unit = xstrdup(unit ? unit : "");
		st->ns++;
	}
	return &st->s[i];
}

static void add_point(struct series *s, size_t version, const struct sample_group *g)
{
	struct stats sum;
	struct point *pt;

	/* A later profile of the same configuration in the same version
	 * replaces the earlier one, as `check` pairs the newest. */
	if (s->n && s->pts[s->n - 1].version == version)
		s->n--;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->pts = xrealloc(s->pts, s->cap * sizeof(*s->pts));
	}
	stats_compute(g->v, g->n, &sum);
	pt = &s->pts[s->n++];
	*pt = (struct point){version, sum.median, sum.q1, sum.q3, sum.n, false, NAN};
}

/* A series whose neighbouring points were measured in different
 * environments says so (or, with --strict-env, is refused). */
static int series_env(struct perf_state *st, struct series *s, const struct profile *p,
		      const char *version)
{
	struct env_info e;
	char a[16], b[16];
	int ret = 0;

	env_info_get(p, &e);
	if (s->n > 1) {
		snprintf(a, sizeof(a), "%.7s", s->env_at);
		snprintf(b, sizeof(b), "%.7s", version);
		ret = cli_env_check_info(&s->env, a, &e, b, st->strict_env);
	}
	env_info_release(&s->env);
	s->env = e;
	memcpy(s->env_at, version, 41);
	return ret;
}

static int gather_version(struct cli_ctx *ctx, struct perf_state *st, size_t at, const char *key)
{
	const char *version = st->ids[st->nids - 1 - at];
	struct version_profiles vp = {0};
	int ret = version_profiles_load(ctx->store, version, &vp);

	for (size_t i = 0; i < vp.n && ret == 0; i++) {
		struct sample_set set;

		samples_build(vp.p[i], NULL, &set);
		for (size_t g = 0; g < set.n && ret == 0; g++) {
			struct series *s;

			if (!matches(set.g[g].location, key))
				continue;
			s = series_for(st, vp.p[i], vp.key[i], set.g[g].location);
			add_point(s, at, &set.g[g]);
			ret = series_env(st, s, vp.p[i], version);
		}
		samples_free(&set);
	}
	version_profiles_free(&vp);
	return ret;
}

/*
 * The typical relative standard error of a version's median, from its own
 * runs: the IQR as a robust sigma (IQR / 1.349), and the median's error
 * about 1.2533 sigma / sqrt(n). Shifts within that are noise however few
 * versions the series has.
 */
static double median_rel_error(const struct series *s)
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

static void mark_changes(struct series *s)
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
		changepoint_pelt(y, s->n, median_rel_error(s), log1p(LOG_PERF_MIN_STEP), c, fit);
	else
		changepoint_pelt(y, s->n, 0, LOG_PERF_MIN_STEP * fabs(stats_mean(y, s->n)), c, fit);
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

static void sparkline(struct buf *b, const struct series *s)
{
	static const char *const bars[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
	double lo = INFINITY, hi = -INFINITY;

	for (size_t i = 0; i < s->n; i++) {
		lo = fmin(lo, s->pts[i].median);
		hi = fmax(hi, s->pts[i].median);
	}
	for (size_t i = 0; i < s->n; i++) {
		size_t k = hi > lo ? (size_t)((s->pts[i].median - lo) / (hi - lo) * 7 + 0.5) : 0;

		buf_adds(b, bars[k]);
	}
}

static void print_series_text(struct buf *b, const struct perf_state *st, const struct series *s)
{
	buf_addf(b, "%s: %s  (%zu version%s, oldest first)\n  ", s->title, s->location, s->n,
		 s->n == 1 ? "" : "s");
	sparkline(b, s);
	buf_addf(b, "\n  %-9s %14s  %-27s %6s\n", "version", "median", "q1 .. q3", "n");
	for (size_t i = 0; i < s->n; i++) {
		const struct point *p = &s->pts[i];
		char med[40], iqr[64];

		snprintf(med, sizeof(med), "%.6g%s%s", p->median, *s->unit ? " " : "", s->unit);
		snprintf(iqr, sizeof(iqr), "%.6g .. %.6g", p->q1, p->q3);
		buf_addf(b, "  %.7s   %14s  %-27s %6zu", st->ids[st->nids - 1 - p->version], med,
			 iqr, p->n);
		if (p->change)
			buf_addf(b, "  ◀ shift %+.1f%%", 100 * p->shift);
		buf_addc(b, '\n');
	}
}

static void print_series_json(struct buf *b, const struct perf_state *st, const struct series *s)
{
	buf_adds(b, "{\"config\":");
	buf_add_json_str(b, s->title, strlen(s->title));
	buf_adds(b, ",\"location\":");
	buf_add_json_str(b, s->location, strlen(s->location));
	buf_adds(b, ",\"unit\":");
	buf_add_json_str(b, s->unit, strlen(s->unit));
	buf_adds(b, ",\"points\":[");
	for (size_t i = 0; i < s->n; i++) {
		const struct point *p = &s->pts[i];

		buf_addf(b,
			 "%s{\"version\":\"%s\",\"median\":%.17g,\"q1\":%.17g,\"q3\":%.17g,"
			 "\"n\":%zu,\"change_point\":%s",
			 i ? "," : "", st->ids[st->nids - 1 - p->version], p->median, p->q1, p->q3,
			 p->n, p->change ? "true" : "false");
		if (p->change && isfinite(p->shift))
			buf_addf(b, ",\"shift\":%.17g", p->shift);
		buf_addc(b, '}');
	}
	buf_adds(b, "]}");
}

static void perf_free(struct perf_state *st)
{
	for (size_t i = 0; i < st->ns; i++) {
		free(st->s[i].title);
		free(st->s[i].location);
		free(st->s[i].unit);
		free(st->s[i].pts);
		env_info_release(&st->s[i].env);
	}
	free(st->s);
	free(st->ids);
	strmap_free(&st->index);
}

int log_perf(struct cli_ctx *ctx, const char *from, size_t limit, const char *key,
	     enum out_format fmt, bool strict_env)
{
	struct perf_state st = {.strict_env = strict_env};
	struct buf out = BUF_INIT;
	int ret = vcs_walk(ctx->vcs, from, limit, remember, &st);

	for (size_t at = 0; at < st.nids && ret == 0; at++)
		ret = gather_version(ctx, &st, at, key);
	if (ret == 0 && st.ns == 0)
		ret = err_set(ERR_NOTFOUND,
			      "no profile in these versions has a location matching '%s'", key);
	if (ret < 0) {
		perf_free(&st);
		return cli_fail() + (strict_env && ret == ERR_INVALID);
	}
	if (fmt == FORMAT_JSON)
		buf_addc(&out, '[');
	for (size_t i = 0; i < st.ns; i++) {
		mark_changes(&st.s[i]);
		if (fmt == FORMAT_JSON) {
			buf_adds(&out, i ? "," : "");
			print_series_json(&out, &st, &st.s[i]);
		} else {
			buf_adds(&out, i ? "\n" : "");
			print_series_text(&out, &st, &st.s[i]);
		}
	}
	if (fmt == FORMAT_JSON)
		buf_adds(&out, "]\n");
	fwrite(out.data, 1, out.len, stdout);
	buf_release(&out);
	perf_free(&st);
	return 0;
}
