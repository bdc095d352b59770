/* veles diff on two bounds profiles: each loop's bound and class, side by side. */
#ifndef VIEW_BOUNDS_DIFF_H
#define VIEW_BOUNDS_DIFF_H

#include <stdbool.h>

struct buf;
struct profile;

/* Both profiles are bounds profiles (their header.type is "bound"). */
bool diff_is_bounds(struct profile *const p[2]);
/* Appends the table to @out: @fmt 0 text, 1 json, 2 csv, 3 markdown; at
 * most @top rows (0: all), the loops that changed most first. */
void diff_bounds_render(struct buf *out, struct profile *const p[2], const char *const names[2],
			int fmt, unsigned long top);

#endif
