/*
 * The one table of the views of a profile: each view's name, whether it
 * applies to a profile, and how it renders into a buffer. `veles show`,
 * the web server and the library's API (veles_views, veles_render_view)
 * list and draw views through it alone. docs/views.md.
 */
#ifndef VIEW_VIEWS_H
#define VIEW_VIEWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "view/view.h"

struct buf;
struct heapmap;
struct heapmap_frame;
struct profile;

/* What any view may read; view_args_init() gives each view's defaults. */
struct view_args {
	struct view_opts vo; /* the figures' and tableof's options */
	const char *name;    /* the profile's name in headers; NULL: "profile" */
	size_t limit;	     /* table, memory: at most this many rows (0: the view's default) */
	bool json;	     /* summary, table, memory: JSON, not text */
	bool compact;	     /* raw: one line, not indented */
	bool verbose;	     /* summary: postprocessors and models as the profile holds them */
	long long snapshot;  /* heapmap: the snapshot shown; -1: the peak's */
	int rows;	     /* heapmap: at most this many rows of cells; 0: 16 */
	/* bounds: reads a source file the profile names; NULL: from the
	 * file system as named. A negative return: not found. */
	int (*read_source)(const char *path, struct buf *out, void *arg);
	void *source_arg;
	int given; /* VIEW_GIVEN_*: the figure options set, which a memory
		    * profile's flow leaves as they are */
	char filter_keys[VIEW_MAX_FILTERS][64]; /* view_args_set's filter keys */
};

enum {
	VIEW_PICTURE = 1, /* draws SVG or HTML too (-o FILE.svg|.html) */
	VIEW_FIGURE = 2,  /* takes the figure options (--of, --per, ...) after its name */
};

struct view_def {
	const char *name;
	const char *operands; /* what may follow the name ("resources|models"), or NULL */
	const char *about;    /* for the help: lines of at most 64 columns */
	int flags;
	/* True when the view can draw @p (its type has what the view needs). */
	bool (*applies_to)(const struct profile *p);
	/* Renders @p into @out for target @t; 0, or a negative ERR_* with
	 * err_set()'s message (a key the profile lacks, a target the view
	 * cannot draw, ...). */
	int (*render)(const struct profile *p, const struct view_args *a, enum view_target t,
		      struct buf *out);
};

/* The views, in the order they are listed; *@n of them. */
const struct view_def *view_defs(size_t *n);
/* The view called @name, or NULL. */
const struct view_def *view_find(const char *name);
/* The view names as a user-facing list: "summary, table, ... or bounds". */
void view_names(struct buf *out);
/* The views and what they show, as `veles show --help` lists them. */
void view_help(struct buf *out);
/* @a with the defaults of view @v (NULL: summary). */
void view_args_init(struct view_args *a, const struct view_def *v);
/*
 * Sets option @key of a view to @value (kept by reference): of, per, by,
 * aggregation, stacked, accumulate, headers (one per call), filter-by
 * (KEY=VALUE), sort-by, descending, subject (tableof: resources or
 * models), format (text, json; tableof: plain, markdown, csv), title,
 * limit, snapshot, rows, width, verbose, compact. ERR_INVALID for an
 * unknown key or a bad value.
 */
int view_args_set(struct view_args *a, const char *key, const char *value);

/* The figure options set (view_args.given); a memory profile's flow is by
 * default the seed's (--of amount --per snapshot --by uid -a mean
 * --stacked --no-accumulate) in the others. */
enum {
	VIEW_GIVEN_OF = 1,
	VIEW_GIVEN_PER = 2,
	VIEW_GIVEN_BY = 4,
	VIEW_GIVEN_AGG = 8,
	VIEW_GIVEN_STACKING = 16,
	VIEW_GIVEN_ACC = 32,
};

/* ---- the views' renderers (summary_view.c, trace_summary.c, mem_text.c,
 * heapmap_view.c) ---- */

void view_resource_table(const struct profile *p, size_t limit, bool json, struct buf *out);
void view_summary(const struct profile *p, const char *name, bool verbose, bool json, size_t limit,
		  struct buf *out);
/* The summary's lines about the profile as a whole, before its table. */
void view_summary_header(const struct profile *p, const char *name, size_t ngroups, bool verbose,
			 struct buf *out);
/* An aggregate trace profile: resources with calls and a histogram. */
bool view_is_trace_aggregate(const struct profile *p);
/* Its summary: per function calls, times and percentiles. */
void view_trace_summary(const struct profile *p, const char *name, bool json, struct buf *out);
/* The heaptrack-style report of a memory profile; ERR_INVALID for another type. */
int view_memory(const struct profile *p, const char *name, size_t limit, bool json,
		struct buf *out);
/* One heapmap frame as text, @width columns wide. */
int view_heapmap_text(const struct profile *p, long long snapshot, int rows, int width,
		      struct buf *out);
extern const char heapmap_level_char[];
void heapmap_frame_header(const struct heapmap *h, int64_t snap, const struct heapmap_frame *f,
			  struct buf *b);
/* @want (-1: the peak's) checked against the snapshots @h has. */
int heapmap_snapshot(const struct heapmap *h, long long want, int64_t *snap);

#endif
