/*
 * The views of a profile's page (api_view.c): each by name, rendered into
 * a buffer. The graphical ones are `veles show -o x.html`'s pages; the
 * memory report, heap map and trace summary JSON the page draws
 * (view_json.c).
 */
#ifndef SERVE_PROJ_VIEW_H
#define SERVE_PROJ_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "serve/resp.h"

struct buf;
struct profile;

struct proj_view {
	const char *name, *title;
	bool html; /* a page for a sandboxed frame; else JSON */
	/* 0 when the profile has what the view needs (its keys, its type);
	 * else ERR_INVALID or ERR_NOTFOUND saying what it lacks. Cheap. */
	int (*applies)(const struct profile *p);
	/* Appends the view of @p to @out; ERR_INVALID (with why) when the
	 * view does not apply to it. */
	int (*render)(const struct profile *p, struct buf *out);
};

/* The view called @name, or NULL. */
const struct proj_view *proj_view_find(const char *name);
/* The @i-th view of the table, or NULL past its end. */
const struct proj_view *proj_view_at(size_t i);
/* "views": [{name, title, html}] that apply to @p, and "unavailable":
 * [{name, reason}], as members of a JSON object. */
void proj_views_json(const struct profile *p, struct buf *b);
/* The view of @p as the answer (404 when it does not apply). */
void proj_view_send(const struct proj_view *v, const struct profile *p, struct resp *out);

/* view_json.c: `show memory`'s report, the heap map's frames, the summary
 * of an aggregate trace profile, as JSON. */
int view_json_memory(const struct profile *p, struct buf *out);
int view_json_heapmap(const struct profile *p, struct buf *out);
int view_json_trace(const struct profile *p, struct buf *out);

#endif
