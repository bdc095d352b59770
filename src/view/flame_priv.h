/*
 * Inside the flame graph: the tree of frames flamegraph.c merges the
 * stacks into, and its drawing as an interactive SVG (flame_svg.c).
 */
#ifndef VIEW_FLAME_PRIV_H
#define VIEW_FLAME_PRIV_H

#include <stdbool.h>
#include <stddef.h>

struct buf;

struct flame_node {
	char *name;
	double v[2]; /* inclusive value in base, target */
	struct flame_node **kids;
	size_t nkids;
};

struct flame_style {
	const char *title;
	const char *unit; /* of the values, for human_value(); NULL: none */
	const char *what; /* the footer's "widths: ..." after "widths: " */
	int wide;	  /* the side whose values give widths: 0 base, 1 target */
	bool diff;	  /* colours by change, and both values in the titles */
};

#define FLAME_WIDTH 1200.0
#define FLAME_ROW 17.0
#define FLAME_PAD 10.0
#define FLAME_TOP 40.0	 /* the title and the controls above the frames */
#define FLAME_MIN_PX 0.1 /* narrower frames are not drawn */

/* The child of @n named @name, made when missing. */
struct flame_node *flame_child(struct flame_node *n, const char *name);
void flame_node_free(struct flame_node *n);

/*
 * The SVG of the tree under @root (named "all"): each frame a <g class="f">
 * with its parent's index, left edge and values in data attributes for
 * web/veles-flame.js, which the SVG carries inline.
 */
void flame_draw(const struct flame_node *root, const struct flame_style *s, struct buf *out);

/*
 * The largest |log2(target / base)| of a frame in both profiles, at least
 * log2(1.1): the change drawn in the deepest colour, so that a graph where
 * nothing moved by 10% stays pale.
 */
double flame_change_scale(const struct flame_node *root);

/*
 * A frame's colour, "#rrggbb": of one profile a warm colour by a hash of
 * @name; of two (@diff) red where the value grew and blue where it shrank,
 * deeper with |log2(t / b)| up to @scale, deepest for a frame only one
 * side has, light grey where nothing changed.
 */
void flame_colour(const char *name, bool diff, double b, double t, double scale, char rgb[8]);

#endif
