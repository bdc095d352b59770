/* veles show: one profile in one of the views of view/views.h, to the
 * terminal or to -o FILE. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/perun-opts.h"
#include "cli/select.h"
#include "cli/show.h"
#include "collect/monitor/monitor.h"
#include "collect/perf/perf_profile.h"
#include "monitor/record.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"

/* The terminal's width: $COLUMNS, the terminal's own, else 80. */
static int term_width(const struct cli_ctx *ctx)
{
	const char *cols = getenv("COLUMNS");
	struct winsize ws;

	if (cols && atoi(cols) >= 20)
		return atoi(cols);
	if (ctx->stdout_tty && ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		return ws.ws_col;
	return 80;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

/* Perun's JSON, streamed: a ten-million-resource profile is never one
 * string in memory, as the view's buffer would make it. */
static int show_raw(const struct profile *p, const struct show_opts *o)
{
	int ret;

	fflush(stdout);
	ret = profile_write_fd(p, STDOUT_FILENO, !o->compact);
	if (ret == 0 && o->compact && write(STDOUT_FILENO, "\n", 1) != 1)
		ret = err_set(ERR_IO, "cannot write profile: %s", strerror(errno));
	return ret < 0 ? cli_fail() : 0;
}

/* The text formats of summary, table and memory; tableof's are its own. */
static int check_format(struct show_opts *o)
{
	enum out_format fmt = FORMAT_TEXT;
	bool figure = o->view->flags & VIEW_FIGURE;

	if (!o->format)
		return 0;
	if (figure && strcmp(o->view->name, "tableof") != 0)
		return cli_usage_error("show",
				       "--format is for tables: the %s view writes -o FILE.svg or "
				       "FILE.html",
				       o->view->name);
	if (figure && view_parse_table_fmt(o->format, &o->a.vo.tfmt) < 0)
		return cli_usage_error("show", "%s", err_msg());
	if (!figure && cli_parse_format("show", o->format, &fmt) < 0)
		return 2;
	o->a.json = fmt == FORMAT_JSON;
	return 0;
}

/* The options the view reads, checked against the view. */
static int finish(struct show_opts *o)
{
	if (!o->view)
		o->view = view_find("summary");
	if (o->limit && (o->view->flags & VIEW_FIGURE)) {
		if (strcmp(o->view->name, "tableof") != 0 &&
		    strcmp(o->view->name, "histogram") != 0)
			return cli_usage_error("show", "--limit is for tables, not the %s view",
					       o->view->name);
		o->a.vo.limit = (size_t)o->limit;
	}
	o->a.limit = (size_t)o->limit;
	o->a.compact = o->compact;
	o->a.verbose = o->verbose;
	o->a.snapshot = o->snapshot;
	o->a.rows = (int)o->rows;
	return check_format(o);
}

/* The target -o names: a picture for .svg and .html, else the terminal's
 * text (tableof's text goes to any file); -1 for a picture it cannot be. */
static int target_of(const struct show_opts *o, enum view_target *t)
{
	*t = TARGET_TERM;
	if (!o->output)
		return 0;
	if (ends_with(o->output, ".svg"))
		*t = TARGET_SVG;
	else if (ends_with(o->output, ".html"))
		*t = TARGET_HTML;
	else if (o->view->flags & VIEW_PICTURE)
		return -1;
	return 0;
}

/* The view rendered, then to stdout or -o FILE. */
static int show_view(struct cli_ctx *ctx, const struct profile *p, const char *name,
		     struct show_opts *o)
{
	struct show_sources src = {ctx, p->origin};
	bool figure = o->view->flags & VIEW_FIGURE;
	enum view_target t;
	struct buf out = BUF_INIT;
	int ret;

	if (!figure)
		o->output = NULL; /* -o is for figures and tables; the others print */
	if (target_of(o, &t) < 0)
		return cli_error("show: -o %s: name a .svg or an .html file", o->output), 2;
	o->a.name = name;
	o->a.vo.width = term_width(ctx);
	o->a.vo.color = ctx->stdout_tty && !o->output && !getenv("NO_COLOR");
	o->a.read_source = show_read_source;
	o->a.source_arg = &src;
	if (strcmp(o->view->name, "raw") == 0 && !o->output)
		return show_raw(p, o);
	if (strcmp(o->view->name, "heapmap") == 0 && ctx->stdout_tty && !o->text && !o->output)
		return show_heapmap_tty(p, o) < 0 ? 1 : 0;
	ret = o->view->render(p, &o->a, t, &out);
	if (ret == 0 && o->output)
		ret = file_write_atomic(o->output, out.data, out.len);
	else if (ret == 0 && out.len)
		fwrite(out.data, 1, out.len, stdout);
	buf_release(&out);
	if (ret < 0 && !figure) {
		fflush(stdout);
		fprintf(stderr, "veles show: %s\n", err_msg());
		return 1;
	}
	return ret < 0 ? cli_fail() : 0;
}

/* A `veles monitor -f` recording: its intervals' summary values, drawn over
 * time unless --per says otherwise. */
static int show_recording(struct cli_ctx *ctx, struct show_opts *o)
{
	struct profile *p;
	int ret;

	if (monitor_recording_profile(o->spec, cli_collect_message, NULL, &p) < 0)
		return cli_fail();
	if (!o->a.vo.per &&
	    (strcmp(o->view->name, "flow") == 0 || strcmp(o->view->name, "scatter") == 0))
		o->a.vo.per = "time";
	ret = show_view(ctx, p, o->spec, o);
	profile_free(p);
	return ret;
}

/* A `veles record` file: its samples as `record --profile` files them. */
static int show_samples(struct cli_ctx *ctx, struct show_opts *o)
{
	struct record_info ri = {.data_path = o->spec, .label = o->spec};
	struct profile *p;
	int ret;

	if (record_load_profile(&ri, &p) < 0)
		return cli_fail();
	ret = show_view(ctx, p, o->spec, o);
	profile_free(p);
	return ret;
}

/* A profile file outside any project: read as it is. */
static int show_file(struct cli_ctx *ctx, struct show_opts *o)
{
	const char *slash = strrchr(o->spec, '/');
	struct profile *p;
	int ret;

	if (profile_load(o->spec, &p) < 0)
		return cli_fail();
	ret = show_view(ctx, p, slash ? slash + 1 : o->spec, o);
	profile_free(p);
	return ret;
}

int cmd_show(struct cli_ctx *ctx, int argc, char **argv)
{
	struct show_opts o = {0};
	struct profile_ref ref;
	struct profile *p;
	int ret;

	/* Perun's view options: where the picture goes, and its title. */
	cli_perun_short_opts(argc, argv,
			     (const char *const[]){"-gt", "--title", "--graph-title", "--title",
						   "--filename", "--output", "-of", "--output",
						   "--output-file", "--output", NULL});
	ret = show_parse_args(argc, argv, &o);
	if (ret == 0)
		ret = finish(&o);
	if (ret)
		return ret < 0 ? 0 : ret;
	/* Files named by path are read without a project: recordings of
	 * record and monitor are no profile of any version. */
	if (mon_file_is_recording(o.spec))
		return show_recording(ctx, &o);
	if (record_file_is_recording(o.spec))
		return show_samples(ctx, &o);
	if (!ctx->vcs) {
		ret = ctx->root ? 0 : cli_find_root(ctx);
		if (ret < 0 && !o.rev && path_exists(o.spec) && !path_is_dir(o.spec)) {
			err_clear();
			return show_file(ctx, &o);
		}
		if (ret < 0 || cli_open_vcs(ctx) < 0) {
			cli_fail();
			return 2;
		}
	}
	if (ref_open(ctx, o.spec, o.rev, REF_DEFAULT_INDEX, &ref, &p) < 0)
		return cli_fail();
	ret = show_view(ctx, p, ref_name(&ref), &o);
	profile_free(p);
	ref_release(&ref);
	return ret;
}
