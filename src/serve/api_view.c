/*
 * A profile's views on its page: GET /api/project/profiles/ID/views/NAME.
 * The graphical views are the pages `veles show ID VIEW -o x.html` writes
 * (view_render into a buffer: the same code, the same scripts inline),
 * served to a sandboxed frame; the memory report and the heap map are
 * JSON the page draws (view_json.c). Which views a profile has is decided
 * by rendering it: a view applies when its renderer accepts the profile.
 */
#include <string.h>

#include "profile/profile.h"
#include "serve/api.h"
#include "serve/proj_view.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "view/view.h"

/* `show`'s flow of a memory profile: the mean amount per allocation site
 * over the snapshots, stacked, not accumulated (cmd-show.c's defaults). */
static void flow_defaults(const struct profile *p, struct view_opts *vo)
{
	if (!p->type || strcmp(p->type, "memory") != 0)
		return;
	vo->of = "amount";
	vo->per = "snapshot";
	vo->by = "uid";
	vo->agg = AGG_MEAN;
	vo->stacked = true;
	vo->accumulate = false;
}

static int graph(const struct profile *p, enum view_kind kind, struct buf *out)
{
	struct view_opts vo;

	view_opts_init(&vo, kind);
	if (kind == VIEW_FLOW)
		flow_defaults(p, &vo);
	return view_render(p, &vo, TARGET_HTML, out);
}

static int bars(const struct profile *p, struct buf *out)
{
	return graph(p, VIEW_BARS, out);
}
static int flow(const struct profile *p, struct buf *out)
{
	return graph(p, VIEW_FLOW, out);
}
static int scatter(const struct profile *p, struct buf *out)
{
	return graph(p, VIEW_SCATTER, out);
}
static int flame(const struct profile *p, struct buf *out)
{
	return graph(p, VIEW_FLAMEGRAPH, out);
}
static int histogram(const struct profile *p, struct buf *out)
{
	return graph(p, VIEW_HISTOGRAM, out);
}
static int resources(const struct profile *p, struct buf *out)
{
	return graph(p, VIEW_TABLE_RES, out);
}

static int models(const struct profile *p, struct buf *out)
{
	if (!p->models || strcmp(p->models, "[]") == 0)
		return err_set(ERR_INVALID, "the profile has no models (postprocess it first)");
	return graph(p, VIEW_TABLE_MODELS, out);
}

static const struct proj_view views[] = {
	{"scatter", "Scatter with models", true, scatter},
	{"bars", "Bars", true, bars},
	{"flow", "Flow", true, flow},
	{"flamegraph", "Flame graph", true, flame},
	{"memory", "Memory", false, view_json_memory},
	{"heapmap", "Heap map", false, view_json_heapmap},
	{"trace", "Trace summary", false, view_json_trace},
	{"histogram", "Histogram", true, histogram},
	{"models", "Models", true, models},
	{"resources", "Resources", true, resources},
};

const struct proj_view *proj_view_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(views); i++)
		if (strcmp(views[i].name, name) == 0)
			return &views[i];
	return NULL;
}

void proj_views_json(const struct profile *p, struct buf *b)
{
	struct buf scratch = BUF_INIT, no = BUF_INIT;
	bool first = true;

	buf_adds(b, "\"views\":[");
	for (size_t i = 0; i < ARRAY_SIZE(views); i++) {
		buf_reset(&scratch);
		err_clear();
		if (views[i].render(p, &scratch) < 0) {
			buf_addf(&no, "%s{\"name\":\"%s\",\"reason\":", no.len ? "," : "",
				 views[i].name);
			buf_add_json_str(&no, err_msg(), strlen(err_msg()));
			buf_addc(&no, '}');
			continue;
		}
		buf_addf(b, "%s{\"name\":\"%s\",\"title\":\"%s\",\"html\":%s}", first ? "" : ",",
			 views[i].name, views[i].title, views[i].html ? "true" : "false");
		first = false;
	}
	buf_addf(b, "],\"unavailable\":[%s]", buf_str(&no));
	err_clear();
	buf_release(&scratch);
	buf_release(&no);
}

void proj_view_send(const struct proj_view *v, const struct profile *p, struct resp *out)
{
	int ret = v->render(p, &out->body);

	if (ret < 0) {
		buf_reset(&out->body);
		/* The view does not apply to this profile: it is not there. */
		resp_error(out, ret == ERR_INVALID || ret == ERR_NOTFOUND ? 404 : 500,
			   *err_msg() ? err_msg() : "the view cannot be drawn");
		return;
	}
	out->status = 200;
	if (v->html) {
		out->ctype = "text/html; charset=utf-8";
		out->view_page = true;
	} else {
		out->ctype = "application/json";
	}
}
