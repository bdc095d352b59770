/*
 * A run's time series on disk: a small header (magic, columns with their
 * units, the wall-clock start), then fixed-size rows of doubles (the time
 * in seconds since the start, then one value per column; NaN: not
 * counted). Rows are appended while the run goes and read meanwhile, so
 * row k is found without an index; a torn last row is ignored. The
 * layout is in docs/serve.md.
 */
#ifndef SERVE_SERIES_H
#define SERVE_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SERIES_MAGIC "VSERIES1"
enum { SERIES_MAX_COLS = 64 };

struct series_writer {
	FILE *f;
	size_t ncols;
	uint64_t rows;
};

/* Creates @path with @ncols columns named @names (units @units, "" for
 * none), started at @start_ms (epoch milliseconds). */
int series_create(struct series_writer *w, const char *path, const char *const *names,
		  const char *const *units, size_t ncols, int64_t start_ms);
/* Appends one row and makes it visible to readers. */
int series_append(struct series_writer *w, double t, const double *v);
/* Syncs and closes. */
int series_close(struct series_writer *w);

struct series {
	int fd;
	size_t ncols;
	char *names[SERIES_MAX_COLS], *units[SERIES_MAX_COLS];
	int64_t start_ms;
	uint64_t data_at; /* where row 0 starts */
};

int series_open(struct series *s, const char *path);
void series_free(struct series *s);
/* Complete rows on disk now. */
uint64_t series_rows(const struct series *s);
/* Rows [@from, @from + @n) into @t (n) and @v (n * ncols, row after row);
 * returns how many were read. */
size_t series_read(const struct series *s, uint64_t from, size_t n, double *t, double *v);

/* What a window of the series becomes for drawing (series_window). */
struct series_view {
	size_t n;      /* points */
	double *t;     /* n */
	double *v;     /* n * ncols, point after point */
	uint64_t rows; /* rows in the window */
	bool exact;    /* every row, not a summary */
	double t0, t1; /* the window (whole series when asked for none) */
};

/*
 * The rows with t0 <= t <= t1 (t1 < t0: everything), at most about
 * 2 * @points of them: every row when they fit, else per time bucket the
 * minimum (at the bucket's first row) and the maximum (at its last) of
 * each column, so peaks survive. Free with series_view_free.
 */
int series_window(const struct series *s, double t0, double t1, size_t points,
		  struct series_view *out);
void series_view_free(struct series_view *v);

/* Counts of column @col's values in @bins equal bins from its minimum to
 * its maximum; @edges gets bins + 1 bounds. NaNs are left out. */
int series_histogram(const struct series *s, size_t col, size_t bins, double *edges,
		     uint64_t *counts);
/* The sum of each column over all rows (NaNs left out) into @sum. */
int series_sums(const struct series *s, double *sum);

#endif
