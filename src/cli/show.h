/* The views of `veles show`: terminal renderings of one profile. */
#ifndef CLI_SHOW_H
#define CLI_SHOW_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/cli.h"
#include "view/view.h"

struct profile;

struct show_opts {
	const char *rev;
	const char *view;
	const char *spec;
	unsigned long limit;
	bool compact;
	bool verbose; /* summary: postprocessors and models as the profile has them */
	enum out_format fmt;
	const char *format;  /* --format as given; each view reads it its way */
	const char *output;  /* -o FILE: .svg or .html (or any name for tableof) */
	struct view_opts vo; /* tableof, bars, flow, scatter */
	bool is_graph;	     /* the view is one of those */
	long long snapshot;  /* heapmap: --snapshot N; -1: the peak's */
	bool text;	     /* heapmap: one frame as text, even on a terminal */
	unsigned long rows;  /* heapmap: --rows N of cells as text; 0: 16 */
	bool stacked_given, grouped_given;
	/* The flow options given, so a memory profile's defaults fill the rest. */
	bool of_given, per_given, by_given, agg_given, acc_given;
};

void show_table(const struct profile *p, const struct show_opts *o);
void show_summary(const struct profile *p, const char *name, const struct show_opts *o);
/* The summary's lines about the profile as a whole, before its table. */
void show_summary_header(const struct profile *p, const char *name, size_t ngroups, bool verbose);
/* An aggregate trace profile: resources with calls and a histogram. */
bool show_is_trace_aggregate(const struct profile *p);
/* Its summary: per function calls, times and percentiles (show-trace.c). */
void show_trace_summary(const struct profile *p, const char *name, const struct show_opts *o);
/* The heaptrack-style summary of a memory profile; -1 (said on stderr) for another type. */
int show_memory(const struct profile *p, const char *name, const struct show_opts *o);

/* The heapmap view: curses when @tty (and not --text), else one frame as
 * text @width columns wide; -1 (said on stderr) for another type. */
int show_heapmap(const struct profile *p, const struct show_opts *o, bool tty, int width);

/* The bounds view of a bounds profile, @width columns wide; 1 (said on
 * stderr) for another type. */
int show_bounds(struct cli_ctx *ctx, const struct profile *p, int width);

#endif
