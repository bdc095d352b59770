/* The chart library and our glue for the HTML views, embedded at build time
 * from web/ (scripts/web-assets.sh generates view_assets.c). */
#ifndef VIEW_VIEW_ASSETS_H
#define VIEW_VIEW_ASSETS_H

#include <stddef.h>

struct view_asset {
	const char *name;
	const unsigned char *data;
	size_t len;
};

/* uPlot.min.css, uPlot.iife.min.js, veles-view.css, veles-view.js, veles-flame.js */
extern const struct view_asset view_assets[];
extern const size_t view_assets_count;

#endif
