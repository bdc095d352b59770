/*
 * veles log --perf KEY: one metric across the history (analyze/history.h).
 * For every location matching KEY, in profiles of one configuration, the
 * median and spread per version (oldest first), a sparkline and the
 * versions where the series shifted; or with -o the chart as a file.
 */
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
#include "view/history_text.h"
#include "view/view.h"

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
	if (fmt != FORMAT_JSON)
		history_text(&out, &h);
	fwrite(buf_str(&out), 1, out.len, stdout);
	buf_release(&out);
	history_free(&h);
	return 0;
}
