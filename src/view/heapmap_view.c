/*
 * The heapmap view as text (docs/views.md): one frame of view/heapmap.h,
 * its header, a row of cells a line and the legend. The CLI's curses
 * rendering draws the same frames with the same header.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "view/heapmap.h"
#include "view/views.h"

#define LABEL 20 /* "0x0000555555559000 |" */
#define TEXT_ROWS 16

const char heapmap_level_char[] = " .:+#";

void heapmap_frame_header(const struct heapmap *h, int64_t snap, const struct heapmap_frame *f,
			  struct buf *b)
{
	buf_addf(b,
		 "heapmap of pid %" PRIu64 ", snapshot %" PRId64 " (of %" PRId64 "..%" PRId64
		 "): %" PRIu64 " B in %zu blocks live\n",
		 h->pid, snap, h->first, h->last, f->bytes, f->blocks);
	buf_addf(b,
		 "one cell: %" PRIu64 " B; %zu address range%s, %" PRIu64
		 " B in all (gaps over 1 MiB left out)\n",
		 h->cell, h->nranges, h->nranges == 1 ? "" : "s", h->span);
}

int heapmap_snapshot(const struct heapmap *h, long long want, int64_t *snap)
{
	*snap = want >= 0 ? (int64_t)want : heapmap_peak(h);
	if (*snap < h->first || *snap > h->last)
		return err_set(ERR_INVALID,
			       "heapmap: no snapshot %" PRId64 " (the events are in %" PRId64
			       "..%" PRId64 ")",
			       *snap, h->first, h->last);
	return 0;
}

/* One frame as text: the header, a row of cells per line, the legend. */
static void frame_text(const struct heapmap *h, int64_t snap, struct buf *b)
{
	struct heapmap_frame f;

	heapmap_frame(h, snap, &f);
	heapmap_frame_header(h, snap, &f, b);
	if (h->nranges == 0)
		buf_adds(b, "no block was allocated: the map is empty\n");
	for (int r = 0; r < h->rows && h->nranges; r++) {
		buf_addf(b, "0x%016" PRIx64 " |", heapmap_row_addr(h, r));
		for (int c = 0; c < h->cols; c++)
			buf_addc(b, heapmap_level_char[f.level[(size_t)r * (size_t)h->cols +
							       (size_t)c]]);
		buf_adds(b, "|\n");
	}
	buf_adds(b,
		 "cells: ' ' empty, '.' up to 1/4 used, ':' up to 1/2, '+' up to 3/4, '#' more\n");
	free(f.level);
}

int view_heapmap_text(const struct profile *p, long long snapshot, int rows, int width,
		      struct buf *out)
{
	struct heapmap h;
	int64_t snap;
	int ret = heapmap_build(p, &h);

	if (ret < 0)
		return ret;
	ret = heapmap_snapshot(&h, snapshot, &snap);
	if (ret == 0) {
		heapmap_layout(&h, (width ? width : 80) - LABEL - 1, rows ? rows : TEXT_ROWS);
		frame_text(&h, snap, out);
	}
	heapmap_release(&h);
	return ret;
}
