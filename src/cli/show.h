/* veles show: its arguments (show-args.c) and the views only a terminal
 * draws (show-heapmap.c) or only a project reads (show-bounds.c). */
#ifndef CLI_SHOW_H
#define CLI_SHOW_H

#include <stdbool.h>

#include "cli/cli.h"
#include "view/views.h"

struct profile;

struct show_opts {
	const char *rev;
	const char *spec;
	const struct view_def *view;
	struct view_args a; /* what the view reads */
	const char *format; /* --format as given; each view reads it its way */
	const char *output; /* -o FILE: .svg or .html (or any name for tableof) */
	long limit;	    /* -n */
	long snapshot;	    /* heapmap: --snapshot N; -1: the peak's */
	long rows;	    /* heapmap: --rows N */
	bool text;	    /* heapmap: one frame as text, even on a terminal */
	bool compact, verbose, desc;
	const char *sort_by, *title;
	int given; /* VIEW_GIVEN_*: the figure options the user set */
	bool stacked_given, grouped_given;
	const char *filter_key; /* --filter-by's KEY, until its VALUE comes */
};

/* Parses `veles show`'s arguments into @o; 0, -1 after --help (exit 0),
 * or 2 after a usage error said on stderr. */
int show_parse_args(int argc, char **argv, struct show_opts *o);

/* The heapmap view in curses, on a terminal; -1 after an error said on stderr. */
int show_heapmap_tty(const struct profile *p, const struct show_opts *o);

/* Reads a source file of a bounds profile as it was measured: from its
 * origin version in a git project, else from the files as named. */
int show_read_source(const char *path, struct buf *out, void *arg);
struct show_sources {
	struct cli_ctx *ctx;
	const char *origin;
};

#endif
