/*
 * Values as a reader wants them in a tooltip: `80.35 ms`, `1.2 MiB`,
 * `14,482,100 samples`, `12.3%`, never `1.44821e+07`. web/veles-flame.js
 * formats the same way in the browser; keep the two in step.
 */
#ifndef VIEW_VFMT_H
#define VIEW_VFMT_H

struct buf;

/*
 * @v in @unit (a profile's unit: "ns", "us", "ms", "s", "B", "samples",
 * ...; NULL or "" for none), four significant digits: a time unit is
 * rescaled to ns, µs, ms or s and a byte unit to B, KiB, MiB, GiB or TiB
 * whichever keeps the number readable; integers of any other unit are
 * printed whole with thousands separated by commas.
 */
void vfmt_value(struct buf *b, double v, const char *unit);

/* @pct percent: one decimal from 1%, two below ("0.25%"), "<0.01%" for less
 * but not 0; with @sign a "+" before growth. */
void vfmt_percent(struct buf *b, double pct, int sign);

#endif
