/*
 * A profile's views on its page: GET /api/project/profiles/ID/views/NAME.
 * The graphical views are the pages `veles show ID VIEW -o x.html` writes
 * (the view table's renderers, view/views.h: the same code and defaults),
 * served to a sandboxed frame; the memory report and the heap map are
 * JSON the page draws (view_json.c). Which views a profile has is decided
 * by its keys, and for a profile of up to PROBE_MAX resources by drawing
 * it: a view applies when its renderer accepts the profile.
 */
#include <string.h>

#include "profile/profile.h"
#include "serve/api.h"
#include "serve/proj_view.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "view/view.h"
#include "view/views.h"

/* Drawing every view of a profile of 200,000 resources to list them takes
 * seconds; up to this many, a fraction of one. */
enum { PROBE_MAX = 20000 };

/* A view of the one view table (view/views.h) with its defaults, as
 * `veles show ID NAME -o x.html` draws it (a memory profile's flow with
 * the seed's options: the table's own rule). @subject: tableof's. */
static int table_view(const struct profile *p, const char *name, const char *subject,
		      struct buf *out)
{
	const struct view_def *v = view_find(name);
	struct view_args a;
	int ret;

	if (!v)
		return err_set(ERR_NOTFOUND, "no view '%s'", name);
	view_args_init(&a, v);
	if (subject && (ret = view_args_set(&a, "subject", subject)) < 0)
		return ret;
	return v->render(p, &a, TARGET_HTML, out);
}

static int bars(const struct profile *p, struct buf *out)
{
	return table_view(p, "bars", NULL, out);
}
static int flow(const struct profile *p, struct buf *out)
{
	return table_view(p, "flow", NULL, out);
}
static int scatter(const struct profile *p, struct buf *out)
{
	return table_view(p, "scatter", NULL, out);
}
static int flame(const struct profile *p, struct buf *out)
{
	return table_view(p, "flamegraph", NULL, out);
}
static int histogram(const struct profile *p, struct buf *out)
{
	return table_view(p, "histogram", NULL, out);
}
static int resources(const struct profile *p, struct buf *out)
{
	return table_view(p, "tableof", "resources", out);
}
static int models(const struct profile *p, struct buf *out)
{
	return table_view(p, "tableof", "models", out);
}

/* ---- whether a view applies, from the profile's keys: what each
 * renderer checks first, said as it says it ---- */

static bool has_key(const struct profile *p, const char *key)
{
	return strcmp(key, "uid") == 0 || table_col(&p->res, key) || table_col(&p->types, key);
}

static int need_key(const struct profile *p, const char *key)
{
	return has_key(p, key) ? 0 : err_set(ERR_NOTFOUND, "the profile has no key '%s'", key);
}

static bool is_memory(const struct profile *p)
{
	return p->type && strcmp(p->type, "memory") == 0;
}

static int any(const struct profile *p)
{
	UNUSED(p);
	return 0;
}

static int sized(const struct profile *p)
{
	return need_key(p, "structure-unit-size");
}

static int amounts(const struct profile *p)
{
	return need_key(p, "amount");
}

static int flowing(const struct profile *p)
{
	return is_memory(p) ? need_key(p, "snapshot") : sized(p);
}

static int stacks(const struct profile *p)
{
	if (has_key(p, "trace"))
		return 0;
	return err_set(ERR_INVALID, "no resource has a call stack (\"trace\") to draw");
}

static int memory(const struct profile *p)
{
	return is_memory(p) ? 0 : err_set(ERR_INVALID, "the memory view is for memory profiles");
}

static int heapmap(const struct profile *p)
{
	if (is_memory(p))
		return 0;
	return err_set(ERR_INVALID, "the heapmap view needs a memory profile, not %s",
		       p->type ? p->type : "this one");
}

static int histograms(const struct profile *p)
{
	if (table_col(&p->res, "histogram"))
		return 0;
	return err_set(ERR_INVALID, "the histogram view needs histograms: collect with `veles "
				    "collect trace --instrumented --aggregate`");
}

static int aggregate(const struct profile *p)
{
	if (table_col(&p->res, "histogram") && table_col(&p->res, "calls"))
		return 0;
	return err_set(ERR_INVALID, "the trace summary is for aggregate trace profiles (veles "
				    "collect trace --instrumented --aggregate)");
}

static int has_models(const struct profile *p)
{
	if (p->models && strcmp(p->models, "[]") != 0)
		return 0;
	return err_set(ERR_INVALID, "the profile has no models (postprocess it first)");
}

static const struct proj_view views[] = {
	{"scatter", "Scatter with models", true, sized, scatter},
	{"bars", "Bars", true, amounts, bars},
	{"flow", "Flow", true, flowing, flow},
	{"flamegraph", "Flame graph", true, stacks, flame},
	{"memory", "Memory", false, memory, view_json_memory},
	{"heapmap", "Heap map", false, heapmap, view_json_heapmap},
	{"trace", "Trace summary", false, aggregate, view_json_trace},
	{"histogram", "Histogram", true, histograms, histogram},
	{"models", "Models", true, has_models, models},
	{"resources", "Resources", true, any, resources},
};

const struct proj_view *proj_view_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(views); i++)
		if (strcmp(views[i].name, name) == 0)
			return &views[i];
	return NULL;
}

const struct proj_view *proj_view_at(size_t i)
{
	return i < ARRAY_SIZE(views) ? &views[i] : NULL;
}

void proj_views_json(const struct profile *p, struct buf *b)
{
	struct buf scratch = BUF_INIT, no = BUF_INIT;
	bool first = true;

	buf_adds(b, "\"views\":[");
	for (size_t i = 0; i < ARRAY_SIZE(views); i++) {
		buf_reset(&scratch);
		err_clear();
		/* The keys decide; a profile small enough is also drawn, which
		 * catches what the keys cannot tell (a key with no number). */
		if (views[i].applies(p) < 0 ||
		    (profile_nres(p) <= PROBE_MAX && views[i].render(p, &scratch) < 0)) {
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
	int ret = v->applies(p);

	if (ret == 0)
		ret = v->render(p, &out->body);

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
