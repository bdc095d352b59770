/*
 * The bounds view of `veles show PROFILE bounds`: the source of each file
 * a bounds profile covers, with every loop's bound and class beside the
 * line where the loop starts, and each function's total beside its name.
 */
#ifndef VIEW_BOUNDS_VIEW_H
#define VIEW_BOUNDS_VIEW_H

#include <stdbool.h>

struct buf;
struct profile;

struct bounds_view_opts {
	int width;  /* terminal columns */
	bool color; /* ANSI colours by class */
	/* Reads source file @path (as the profile names it) into @out; a
	 * negative return: not found (the view then lists the bounds alone). */
	int (*read)(const char *path, struct buf *out, void *arg);
	void *arg;
};

/* Renders the view into @out; ERR_INVALID for a profile without bounds. */
int view_bounds(const struct profile *p, const struct bounds_view_opts *o, struct buf *out);

#endif
