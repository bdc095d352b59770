/*
 * Flame graphs of the call stacks in a profile's resources ("trace"
 * attributes: a list of frames, innermost first, as the memory collector
 * writes them): one for a profile, or a differential one for two.
 */
#ifndef VIEW_FLAMEGRAPH_H
#define VIEW_FLAMEGRAPH_H

#include <stdbool.h>

struct buf;
struct profile;

struct flame_opts {
	const char *of; /* the value summed per stack; NULL: "amount" */
	bool count;	/* widths count the resources whose value is not 0 */
	const char *title;
	bool negate; /* differential: widths from the baseline, not the target */
};

/*
 * A standalone SVG that zooms on a click, searches and shows tooltips in a
 * browser (web/veles-flame.js inline). With @base, a differential flame graph: frame widths
 * from @target (or @base with negate), colours from the change of each
 * frame's inclusive value, red where it grew and blue where it shrank.
 * ERR_INVALID when no resource has a trace.
 */
int flamegraph_svg(const struct profile *base, const struct profile *target,
		   const struct flame_opts *o, struct buf *out);

/* The same SVG inline in a self-contained HTML page, with a line of help. */
int flamegraph_page(const struct profile *base, const struct profile *target,
		    const struct flame_opts *o, struct buf *out);

/*
 * The stacks of @p in the flame-graph "collapsed" format (Brendan Gregg's
 * stackcollapse output, what flamegraph.pl and speedscope read): a line
 * per stack, "outer;...;inner VALUE", VALUE the stack's own (exclusive)
 * sum. ERR_INVALID when no resource has a trace.
 */
int flamegraph_folded(const struct profile *p, const struct flame_opts *o, struct buf *out);

#endif
