/*
 * The heapmap view's data (docs/views.md): which blocks of a memory
 * profile's first process were live at the end of each snapshot, and where
 * in the address space they lay. The used address ranges (gaps over 1 MiB
 * left out) are laid end to end and cut into rows of cells; a frame gives
 * each cell a level of use at one snapshot. show-heapmap.c draws frames.
 */
#ifndef VIEW_HEAPMAP_H
#define VIEW_HEAPMAP_H

#include <stddef.h>
#include <stdint.h>

struct profile;

struct hm_block {
	uint64_t addr, size;
	int64_t from, to; /* live at the end of snapshots from .. to - 1 */
};

struct hm_range {
	uint64_t lo, hi; /* addresses */
	uint64_t start;	 /* its offset with the ranges laid end to end */
};

struct heapmap {
	uint64_t pid;
	int64_t first, last; /* the snapshots with events */
	struct hm_block *blocks;
	size_t nblocks;
	struct hm_range *ranges;
	size_t nranges;
	uint64_t span; /* bytes of all ranges */
	/* heapmap_layout's: */
	uint64_t cell; /* bytes per cell, a multiple of 16 */
	int cols, rows;
};

struct heapmap_frame {
	unsigned char *level; /* rows * cols: 0 empty .. 4 over three quarters used */
	uint64_t bytes;	      /* live at the snapshot's end */
	size_t blocks;
};

/* ERR_INVALID for a profile that is not of type memory. */
int heapmap_build(const struct profile *p, struct heapmap *h);
/* Cells for at most @cols x @rows; sets cell, cols and rows (rows may be fewer). */
void heapmap_layout(struct heapmap *h, int cols, int rows);
/* The frame of snapshot @snap; the caller frees f->level. */
void heapmap_frame(const struct heapmap *h, int64_t snap, struct heapmap_frame *f);
/* The snapshot whose end saw the most bytes live (the first, on a tie). */
int64_t heapmap_peak(const struct heapmap *h);
/* The address of the first cell of @row. */
uint64_t heapmap_row_addr(const struct heapmap *h, int row);
void heapmap_release(struct heapmap *h);

#endif
