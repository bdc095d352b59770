/* The browser UI (built from web/serve/ with esbuild at build time and
 * embedded by scripts/serve-assets.sh): index.html, app.js, app.css. */
#ifndef SERVE_ASSETS_H
#define SERVE_ASSETS_H

#include <stddef.h>

struct serve_asset {
	const char *name;
	const unsigned char *data;
	size_t len;
};

extern const struct serve_asset serve_assets[];
extern const size_t serve_assets_count;

#endif
