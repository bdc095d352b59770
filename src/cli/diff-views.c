/* veles diff's views: the table, a bounds table, the differential flame
 * graph and the HTML report, rendered by the library and printed here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/diff.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "view/bounds_diff.h"
#include "view/diff_report.h"
#include "view/flamegraph.h"

int diff_flamegraph(const struct diff_opts *o, struct profile *p[2], const char *names[2])
{
	struct flame_opts fo = {.of = o->jo.of, .negate = o->negate};
	struct buf b = BUF_INIT;
	char *title = xasprintf("%s -> %s", names[0], names[1]);
	int ret;

	fo.title = title;
	if (o->output && strlen(o->output) > 5 &&
	    strcmp(o->output + strlen(o->output) - 5, ".html") == 0)
		ret = flamegraph_page(p[0], p[1], &fo, &b);
	else
		ret = flamegraph_svg(p[0], p[1], &fo, &b);
	if (ret == 0 && o->output)
		ret = file_write_atomic(o->output, b.data, b.len);
	else if (ret == 0)
		fwrite(buf_str(&b), 1, b.len, stdout);
	buf_release(&b);
	free(title);
	if (ret < 0)
		return cli_fail();
	if (o->output)
		fprintf(stderr, "flame graph written to %s\n", o->output);
	return 0;
}

/* A name for the report file: the profile's, without ".perf". */
static char *stem(const char *name)
{
	const char *slash = strrchr(name, '/');
	size_t n;

	name = slash ? slash + 1 : name;
	n = strlen(name);
	if (n > 5 && strcmp(name + n - 5, ".perf") == 0)
		n -= 5;
	return xstrndup(name, n);
}

int diff_report(const struct diff_opts *o, struct profile *p[2], const char *names[2])
{
	struct report_opts ro = {{names[0], names[1]}, o->jo.of, (enum report_agg)o->jo.agg};
	struct buf b = BUF_INIT;
	char *file = NULL;
	int ret = diff_report_html(p[0], p[1], &ro, &b);

	if (ret == 0 && o->output && strcmp(o->output, "-") == 0) {
		fwrite(buf_str(&b), 1, b.len, stdout);
		buf_release(&b);
		return 0;
	}
	if (ret == 0 && !o->output) {
		char *a = stem(names[0]), *t = stem(names[1]);

		file = xasprintf("report-diff-of-%s-and-%s.html", a, t);
		free(a);
		free(t);
	}
	if (ret == 0)
		ret = file_write_atomic(file ? file : o->output, b.data, b.len);
	if (ret == 0)
		fprintf(stderr, "report written to %s\n", file ? file : o->output);
	buf_release(&b);
	free(file);
	return ret < 0 ? cli_fail() : 0;
}

int diff_loaded(const struct diff_opts *o, struct profile *p[2], const char *names[2])
{
	struct diff_rows rows;
	struct buf b = BUF_INIT;

	if (diff_join(p[0], p[1], &o->jo, &rows) < 0)
		return cli_fail();
	diff_rows_render(&b, &rows, o->fmt, o->jo.group_by, names[0], names[1]);
	fwrite(buf_str(&b), 1, b.len, stdout);
	buf_release(&b);
	diff_rows_free(&rows);
	return 0;
}

void diff_bounds(const struct diff_opts *o, struct profile *p[2], const char *names[2])
{
	struct buf b = BUF_INIT;

	diff_bounds_render(&b, p, names, (int)o->fmt, (unsigned long)o->top);
	fwrite(buf_str(&b), 1, b.len, stdout);
	buf_release(&b);
}
