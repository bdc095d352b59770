/*
 * veles log --perf KEY: one metric across the history (analyze/history.h).
 * For every location matching KEY, in profiles of one configuration, the
 * median and spread per version (oldest first), a sparkline and the
 * versions where the series shifted; or with -o the chart as a file.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze/envinfo.h"
#include "analyze/history.h"
#include "cli/cli.h"
#include "cli/envcheck.h"
#include "cli/log.h"
#include "project/history_load.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "view/view.h"

static void sparkline(struct buf *b, const struct history_series *s)
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

static void print_series_text(struct buf *b, const struct history *h,
			      const struct history_series *s)
{
	buf_addf(b, "%s: %s  (%zu version%s, oldest first)\n  ", s->title, s->location, s->n,
		 s->n == 1 ? "" : "s");
	sparkline(b, s);
	buf_addf(b, "\n  %-9s %14s  %-27s %6s\n", "version", "median", "q1 .. q3", "n");
	for (size_t i = 0; i < s->n; i++) {
		const struct history_point *p = &s->pts[i];
		char med[40], iqr[64];

		snprintf(med, sizeof(med), "%.6g%s%s", p->median, *s->unit ? " " : "", s->unit);
		snprintf(iqr, sizeof(iqr), "%.6g .. %.6g", p->q1, p->q3);
		buf_addf(b, "  %.7s   %14s  %-27s %6zu", h->versions[p->version].id, med, iqr,
			 p->n);
		if (p->change)
			buf_addf(b, "  ◀ shift %+.1f%%", 100 * p->shift);
		buf_addc(b, '\n');
	}
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

/* -o FILE: the chart, SVG or HTML by the file's name. */
static int write_chart(const struct history *h, const char *key, const char *output)
{
	bool svg = ends_with(output, ".svg");
	struct buf out = BUF_INIT;
	char *title;
	int ret;

	if (!svg && !ends_with(output, ".html") && !ends_with(output, ".htm"))
		return cli_usage_error("log", "--output wants FILE.svg or FILE.html, not '%s'",
				       output);
	title = xasprintf("veles log --perf %s", key);
	ret = view_history_render(h, title, svg ? TARGET_SVG : TARGET_HTML, &out);
	if (ret == 0)
		ret = file_write_atomic(output, out.data, out.len);
	free(title);
	buf_release(&out);
	return ret < 0 ? cli_fail() : 0;
}

/* Each series' last point's environment, to compare the next one with. */
struct env_state {
	bool strict;
	struct env_info *env;
	size_t n;
};

/* A series whose neighbouring points were measured in different
 * environments says so (or, with --strict-env, is refused). */
static int check_env(void *arg, const struct history *h, size_t series, const struct profile *p)
{
	struct env_state *st = arg;
	const struct history_series *s = &h->s[series];
	struct env_info e;
	char a[16], b[16];
	int ret = 0;

	if (series >= st->n) {
		st->env = xrealloc(st->env, (series + 1) * sizeof(*st->env));
		memset(st->env + st->n, 0, (series + 1 - st->n) * sizeof(*st->env));
		st->n = series + 1;
	}
	env_info_get(p, &e);
	if (s->n > 1) {
		snprintf(a, sizeof(a), "%.7s", h->versions[s->pts[s->n - 2].version].id);
		snprintf(b, sizeof(b), "%.7s", h->versions[s->pts[s->n - 1].version].id);
		ret = cli_env_check_info(&st->env[series], a, &e, b, st->strict);
	}
	env_info_release(&st->env[series]);
	st->env[series] = e;
	return ret;
}

int log_perf(struct cli_ctx *ctx, const char *from, size_t limit, const char *key,
	     enum out_format fmt, bool strict_env, const char *output)
{
	struct history h = {0};
	struct buf out = BUF_INIT;
	struct env_state env = {strict_env, NULL, 0};
	int ret = history_load(ctx->vcs, ctx->store, from, limit, key, check_env, &env, &h);

	for (size_t i = 0; i < env.n; i++)
		env_info_release(&env.env[i]);
	free(env.env);
	if (ret < 0) {
		history_free(&h);
		return cli_fail() + (strict_env && ret == ERR_INVALID);
	}
	if (output) {
		ret = write_chart(&h, key, output);
		history_free(&h);
		return ret;
	}
	if (fmt == FORMAT_JSON) {
		history_series_json(&h, &out);
		buf_addc(&out, '\n');
	}
	for (size_t i = 0; fmt != FORMAT_JSON && i < h.ns; i++) {
		buf_adds(&out, i ? "\n" : "");
		print_series_text(&out, &h, &h.s[i]);
	}
	fwrite(out.data, 1, out.len, stdout);
	buf_release(&out);
	history_free(&h);
	return 0;
}
