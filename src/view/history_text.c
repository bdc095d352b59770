/* A metric's history as text (history_text.h). */
#include <math.h>
#include <stdio.h>

#include "analyze/history.h"
#include "util/buf.h"
#include "view/history_text.h"

static void sparkline(struct buf *b, const struct history_series *s)
{
	static const char *const bars[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
	double lo = INFINITY, hi = -INFINITY;

	for (size_t i = 0; i < s->n; i++) {
		lo = fmin(lo, s->pts[i].median);
		hi = fmax(hi, s->pts[i].median);
	}
	for (size_t i = 0; i < s->n; i++) {
		size_t k = hi > lo ? (size_t)((s->pts[i].median - lo) / (hi - lo) * 7 + 0.5) : 0;

		buf_adds(b, bars[k]);
	}
}

void history_series_text(struct buf *b, const struct history *h, const struct history_series *s)
{
	buf_addf(b, "%s: %s  (%zu version%s, oldest first)\n  ", s->title, s->location, s->n,
		 s->n == 1 ? "" : "s");
	sparkline(b, s);
	buf_addf(b, "\n  %-9s %14s  %-27s %6s\n", "version", "median", "q1 .. q3", "n");
	for (size_t i = 0; i < s->n; i++) {
		const struct history_point *p = &s->pts[i];
		char med[40], iqr[64];

		snprintf(med, sizeof(med), "%.6g%s%s", p->median, *s->unit ? " " : "", s->unit);
		snprintf(iqr, sizeof(iqr), "%.6g .. %.6g", p->q1, p->q3);
		buf_addf(b, "  %.7s   %14s  %-27s %6zu", h->versions[p->version].id, med, iqr,
			 p->n);
		if (p->change)
			buf_addf(b, "  ◀ shift %+.1f%%", 100 * p->shift);
		buf_addc(b, '\n');
	}
}

void history_text(struct buf *b, const struct history *h)
{
	for (size_t i = 0; i < h->ns; i++) {
		buf_adds(b, i ? "\n" : "");
		history_series_text(b, h, &h->s[i]);
	}
}
