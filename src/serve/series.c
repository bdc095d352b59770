/* A run's series file (series.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serve/series.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/xalloc.h"

struct series_head {
	char magic[8];
	uint32_t version, ncols;
	int64_t start_ms;
	uint32_t names_len, pad; /* names and units, NUL after each, padded to 8 */
};

int series_create(struct series_writer *w, const char *path, const char *const *names,
		  const char *const *units, size_t ncols, int64_t start_ms)
{
	struct series_head h = {.magic = SERIES_MAGIC, .version = 1, .start_ms = start_ms};
	struct buf b = BUF_INIT;
	static const char zero[8];

	if (ncols > SERIES_MAX_COLS)
		return err_set(ERR_INVALID, "at most %d columns", SERIES_MAX_COLS);
	for (size_t i = 0; i < ncols; i++) {
		buf_add(&b, names[i], strlen(names[i]) + 1);
		buf_add(&b, units[i], strlen(units[i]) + 1);
	}
	h.ncols = (uint32_t)ncols;
	h.names_len = (uint32_t)b.len;
	w->f = fopen(path, "wxe");
	w->ncols = ncols;
	w->rows = 0;
	if (!w->f) {
		buf_release(&b);
		return err_set(ERR_IO, "cannot create %s: %s", path, strerror(errno));
	}
	fwrite(&h, sizeof(h), 1, w->f);
	if (b.len)
		fwrite(b.data, 1, b.len, w->f);
	fwrite(zero, 1, (8 - b.len % 8) % 8, w->f);
	buf_release(&b);
	if (fflush(w->f) != 0)
		return err_set(ERR_IO, "cannot write %s: %s", path, strerror(errno));
	return 0;
}

int series_append(struct series_writer *w, double t, const double *v)
{
	if (fwrite(&t, sizeof(t), 1, w->f) != 1 ||
	    (w->ncols && fwrite(v, sizeof(*v), w->ncols, w->f) != w->ncols) || fflush(w->f) != 0)
		return err_set(ERR_IO, "cannot write a series: %s", strerror(errno));
	w->rows++;
	return 0;
}

int series_close(struct series_writer *w)
{
	int ret = 0;

	if (!w->f)
		return 0;
	if (fflush(w->f) != 0 || fsync(fileno(w->f)) != 0)
		ret = err_set(ERR_IO, "cannot write a series: %s", strerror(errno));
	fclose(w->f);
	w->f = NULL;
	return ret;
}

static int bad(struct series *s, const char *path)
{
	series_free(s);
	return err_set(ERR_PARSE, "%s is not a series file", path);
}

int series_open(struct series *s, const char *path)
{
	struct series_head h;
	char *names;
	size_t at = 0;

	memset(s, 0, sizeof(*s));
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0)
		return err_set(errno == ENOENT ? ERR_NOTFOUND : ERR_IO, "cannot open %s: %s", path,
			       strerror(errno));
	if (pread(s->fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h.magic, SERIES_MAGIC, 8) != 0 || h.version != 1 || h.ncols > SERIES_MAX_COLS ||
	    h.names_len > 1 << 20)
		return bad(s, path);
	names = xmalloc(h.names_len + 1);
	if (pread(s->fd, names, h.names_len, sizeof(h)) != (ssize_t)h.names_len) {
		free(names);
		return bad(s, path);
	}
	names[h.names_len] = '\0';
	for (size_t i = 0; i < h.ncols; i++) {
		for (int k = 0; k < 2; k++) {
			char **dst = k ? &s->units[i] : &s->names[i];

			if (at >= h.names_len) {
				free(names);
				s->ncols = i;
				return bad(s, path);
			}
			*dst = xstrdup(names + at);
			at += strlen(names + at) + 1;
		}
		s->ncols = i + 1;
	}
	free(names);
	s->start_ms = h.start_ms;
	s->data_at = sizeof(h) + h.names_len + (8 - h.names_len % 8) % 8;
	return 0;
}

void series_free(struct series *s)
{
	for (size_t i = 0; i < s->ncols; i++) {
		free(s->names[i]);
		free(s->units[i]);
	}
	if (s->fd > 0)
		close(s->fd);
	memset(s, 0, sizeof(*s));
}

static size_t row_size(const struct series *s)
{
	return sizeof(double) * (s->ncols + 1);
}

uint64_t series_rows(const struct series *s)
{
	struct stat st;

	if (fstat(s->fd, &st) < 0 || (uint64_t)st.st_size < s->data_at)
		return 0;
	return ((uint64_t)st.st_size - s->data_at) / row_size(s);
}

enum { CHUNK_ROWS = 4096 };

size_t series_read(const struct series *s, uint64_t from, size_t n, double *t, double *v)
{
	size_t rs = row_size(s), done = 0;
	double *buf = xmalloc(rs * (n < CHUNK_ROWS ? (n ? n : 1) : CHUNK_ROWS));

	while (done < n) {
		size_t want = n - done < CHUNK_ROWS ? n - done : CHUNK_ROWS;
		ssize_t got =
			pread(s->fd, buf, want * rs, (off_t)(s->data_at + (from + done) * rs));
		size_t rows = got > 0 ? (size_t)got / rs : 0;

		for (size_t r = 0; r < rows; r++) {
			const double *row = buf + r * (s->ncols + 1);

			t[done + r] = row[0];
			memcpy(v + (done + r) * s->ncols, row + 1, s->ncols * sizeof(double));
		}
		done += rows;
		if (rows < want)
			break;
	}
	free(buf);
	return done;
}

static double time_at(const struct series *s, uint64_t row)
{
	double t = NAN;

	if (pread(s->fd, &t, sizeof(t), (off_t)(s->data_at + row * row_size(s))) != sizeof(t))
		return NAN;
	return t;
}

/* The first row at or after time @t (rows are in time order). */
static uint64_t lower_bound(const struct series *s, uint64_t rows, double t)
{
	uint64_t lo = 0, hi = rows;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (time_at(s, mid) < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void push(struct series_view *out, size_t *cap, size_t ncols, double t, const double *v)
{
	size_t c = *cap;

	out->t = xgrow(out->t, sizeof(double), out->n + 1, cap);
	*cap = c;
	out->v = xgrow(out->v, sizeof(double) * (ncols ? ncols : 1), out->n + 1, cap);
	out->t[out->n] = t;
	memcpy(out->v + out->n * ncols, v, ncols * sizeof(double));
	out->n++;
}

struct bucket {
	bool used;
	double t_first, t_last;
	double *min, *max;
};

static void bucket_flush(struct series_view *out, size_t *cap, size_t ncols, struct bucket *b)
{
	if (!b->used)
		return;
	push(out, cap, ncols, b->t_first, b->min);
	if (b->t_last > b->t_first)
		push(out, cap, ncols, b->t_last, b->max);
	b->used = false;
}

static void bucket_add(struct bucket *b, size_t ncols, double t, const double *v)
{
	if (!b->used) {
		b->used = true;
		b->t_first = t;
		memcpy(b->min, v, ncols * sizeof(double));
		memcpy(b->max, v, ncols * sizeof(double));
	}
	b->t_last = t;
	for (size_t c = 0; c < ncols; c++) {
		/* fmin/fmax keep the number when one side is NaN. */
		b->min[c] = fmin(b->min[c], v[c]);
		b->max[c] = fmax(b->max[c], v[c]);
	}
}

/* Rows [a, b) summarised into buckets of equal time over [t0, t1]. */
static void summarise(const struct series *s, uint64_t a, uint64_t b, size_t points,
		      struct series_view *out, size_t *cap)
{
	size_t nc = s->ncols;
	double *t = xmalloc(CHUNK_ROWS * sizeof(double));
	double *v = xmalloc(CHUNK_ROWS * sizeof(double) * (nc ? nc : 1));
	struct bucket bk = {false, 0, 0, xcalloc(nc + 1, sizeof(double)),
			    xcalloc(nc + 1, sizeof(double))};
	double span = out->t1 - out->t0;
	long cur = -1;

	for (uint64_t at = a; at < b;) {
		size_t want = b - at < CHUNK_ROWS ? (size_t)(b - at) : CHUNK_ROWS;
		size_t got = series_read(s, at, want, t, v);

		for (size_t r = 0; r < got; r++) {
			long k = span > 0 ? (long)((t[r] - out->t0) / span * (double)points) : 0;

			if (k >= (long)points) /* the window's last instant */
				k = (long)points - 1;

			if (k != cur) {
				bucket_flush(out, cap, nc, &bk);
				cur = k;
			}
			bucket_add(&bk, nc, t[r], v + r * nc);
		}
		if (got < want)
			break;
		at += got;
	}
	bucket_flush(out, cap, nc, &bk);
	free(bk.min);
	free(bk.max);
	free(t);
	free(v);
}

int series_window(const struct series *s, double t0, double t1, size_t points,
		  struct series_view *out)
{
	uint64_t rows = series_rows(s), a = 0, b = rows;
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	if (points < 1)
		points = 1;
	if (t1 >= t0) {
		a = lower_bound(s, rows, t0);
		b = lower_bound(s, rows, nextafter(t1, INFINITY));
	} else {
		t0 = rows ? time_at(s, 0) : 0;
		t1 = rows ? time_at(s, rows - 1) : 0;
	}
	out->t0 = t0;
	out->t1 = t1;
	out->rows = b - a;
	out->exact = out->rows <= 2 * points;
	if (out->exact) {
		out->t = xmalloc((out->rows ? out->rows : 1) * sizeof(double));
		out->v = xmalloc((out->rows ? out->rows : 1) * sizeof(double) * (s->ncols + 1));
		out->n = series_read(s, a, (size_t)out->rows, out->t, out->v);
		return 0;
	}
	summarise(s, a, b, points, out, &cap);
	return 0;
}

void series_view_free(struct series_view *v)
{
	free(v->t);
	free(v->v);
	memset(v, 0, sizeof(*v));
}

/* Calls @fn on every row, a chunk at a time. */
static void each_row(const struct series *s, void (*fn)(void *arg, const double *v), void *arg)
{
	uint64_t rows = series_rows(s);
	double *t = xmalloc(CHUNK_ROWS * sizeof(double));
	double *v = xmalloc(CHUNK_ROWS * sizeof(double) * (s->ncols + 1));

	for (uint64_t at = 0; at < rows;) {
		size_t want = rows - at < CHUNK_ROWS ? (size_t)(rows - at) : CHUNK_ROWS;
		size_t got = series_read(s, at, want, t, v);

		for (size_t r = 0; r < got; r++)
			fn(arg, v + r * s->ncols);
		if (got < want)
			break;
		at += got;
	}
	free(t);
	free(v);
}

struct hist {
	size_t col, ncols, bins;
	double lo, hi;
	uint64_t *counts;
	bool pass2;
};

static void hist_row(void *arg, const double *v)
{
	struct hist *h = arg;
	double x = v[h->col];

	if (isnan(x))
		return;
	if (!h->pass2) {
		h->lo = fmin(h->lo, x);
		h->hi = fmax(h->hi, x);
		return;
	}
	size_t k = h->hi > h->lo ? (size_t)((x - h->lo) / (h->hi - h->lo) * (double)h->bins) : 0;

	h->counts[k < h->bins ? k : h->bins - 1]++;
}

int series_histogram(const struct series *s, size_t col, size_t bins, double *edges,
		     uint64_t *counts)
{
	struct hist h = {col, s->ncols, bins, INFINITY, -INFINITY, counts, false};

	if (col >= s->ncols || bins < 1)
		return err_set(ERR_INVALID, "no such column or no bins");
	memset(counts, 0, bins * sizeof(*counts));
	each_row(s, hist_row, &h);
	if (h.lo > h.hi)
		h.lo = h.hi = 0;
	h.pass2 = true;
	each_row(s, hist_row, &h);
	for (size_t i = 0; i <= bins; i++)
		edges[i] = h.lo + (h.hi - h.lo) * (double)i / (double)bins;
	return 0;
}

struct sums {
	size_t ncols;
	double *sum;
};

static void sum_row(void *arg, const double *v)
{
	struct sums *s = arg;

	for (size_t c = 0; c < s->ncols; c++)
		if (!isnan(v[c]))
			s->sum[c] += v[c];
}

int series_sums(const struct series *s, double *sum)
{
	struct sums x = {s->ncols, sum};

	memset(sum, 0, s->ncols * sizeof(*sum));
	each_row(s, sum_row, &x);
	return 0;
}
