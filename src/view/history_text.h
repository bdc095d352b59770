/*
 * `veles log --perf`'s text: per series its title and location, a
 * sparkline of the medians, and a row per version (median, quartiles,
 * count) marking the change points with their shift.
 */
#ifndef VIEW_HISTORY_TEXT_H
#define VIEW_HISTORY_TEXT_H

struct buf;
struct history;
struct history_series;

void history_series_text(struct buf *b, const struct history *h, const struct history_series *s);
/* Every series, a blank line between. */
void history_text(struct buf *b, const struct history *h);

#endif
