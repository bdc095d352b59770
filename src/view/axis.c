/* Axis ranges, ticks at 1-2-5 steps, and numbers short enough for a tick. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/buf.h"
#include "util/common.h"
#include "view/view_priv.h"

void axis_range(double *lo, double *hi)
{
	if (!isfinite(*lo) || !isfinite(*hi)) {
		*lo = 0;
		*hi = 1;
	}
	if (*hi == *lo) {
		double d = *lo ? fabs(*lo) * 0.5 : 1;

		*lo -= d;
		*hi += d;
	}
}

size_t axis_ticks(double lo, double hi, size_t want, double *ticks, size_t max)
{
	double raw = (hi - lo) / (double)(want ? want : 1);
	double mag = pow(10, floor(log10(raw)));
	double step = mag, t;
	size_t n = 0;

	if (raw / mag > 5)
		step = 10 * mag;
	else if (raw / mag > 2)
		step = 5 * mag;
	else if (raw / mag > 1)
		step = 2 * mag;
	for (t = ceil(lo / step - 1e-9) * step; t <= hi + step * 1e-9 && n < max; t += step)
		ticks[n++] = fabs(t) < step * 1e-9 ? 0 : t;
	return n;
}

void axis_nice(double *lo, double *hi, size_t want)
{
	double raw = (*hi - *lo) / (double)(want ? want : 1);
	double mag = pow(10, floor(log10(raw)));
	double step = raw / mag > 5   ? 10 * mag
		      : raw / mag > 2 ? 5 * mag
		      : raw / mag > 1 ? 2 * mag
				      : mag;

	*lo = floor(*lo / step + 1e-9) * step;
	*hi = ceil(*hi / step - 1e-9) * step;
}

void axis_num(double v, struct buf *out)
{
	double a = fabs(v);

	if (a >= 1e6 || (a > 0 && a < 1e-3))
		buf_addf(out, "%.3g", v);
	else
		buf_addf(out, "%.6g", v);
}

/* Time units a profile names, smallest first: what a duration is scaled to. */
static const struct {
	const char *name, *shown;
	double s;
} time_units[] = {
	{"ns", "ns", 1e-9},
	{"us", "\xc2\xb5s", 1e-6},
	{"\xc2\xb5s", "\xc2\xb5s", 1e-6},
	{"ms", "ms", 1e-3},
	{"s", "s", 1},
};

double axis_time_unit(const char *unit)
{
	for (size_t i = 0; unit && i < ARRAY_SIZE(time_units); i++)
		if (strcmp(unit, time_units[i].name) == 0)
			return time_units[i].s;
	return 0;
}

/* The unit to show @secs in: the largest whose count is at least 1, where
 * 999.96 µs is 1 ms (as "%.4g" would print 1000 µs). */
static size_t time_unit_for(double secs)
{
	size_t u = 0;

	for (size_t i = 1; i < ARRAY_SIZE(time_units); i++)
		if (fabs(secs) >= time_units[i].s * (1 - 5e-5))
			u = i;
	return u;
}

static void time_count(double v, struct buf *out)
{
	/* Four digits read at a glance; seconds past 9999 need no fraction. */
	buf_addf(out, fabs(v) >= 1e4 ? "%.0f" : "%.4g", v);
}

void axis_time(double v, double unit_s, struct buf *out)
{
	size_t u = time_unit_for(v * unit_s);

	time_count(v * unit_s / time_units[u].s, out);
	buf_addf(out, " %s", time_units[u].shown);
}

void axis_time_range(double lo, double hi, double unit_s, struct buf *out)
{
	size_t u = time_unit_for(fmax(fabs(lo), fabs(hi)) * unit_s);

	/* Both ends in the unit of the larger: "80.35 \xe2\x80\x93 100.4 ms". */
	time_count(lo * unit_s / time_units[u].s, out);
	buf_adds(out, " \xe2\x80\x93 "); /* en dash */
	time_count(hi * unit_s / time_units[u].s, out);
	buf_addf(out, " %s", time_units[u].shown);
}

/* The data extent of a plot; stacked series add up per x. */
void plot_ranges(const struct vplot *pl, bool stacked, double *xlo, double *xhi, double *ylo,
		 double *yhi)
{
	size_t i, s;

	*xlo = *ylo = INFINITY;
	*xhi = *yhi = -INFINITY;
	for (i = 0; i < pl->nx; i++) {
		double sum = 0;

		*xlo = fmin(*xlo, pl->x[i]);
		*xhi = fmax(*xhi, pl->x[i]);
		for (s = 0; s < pl->ns; s++) {
			double y = pl->s[s].y[i];

			if (isnan(y))
				continue;
			sum += y;
			*ylo = fmin(*ylo, stacked ? sum : y);
			*yhi = fmax(*yhi, stacked ? sum : y);
		}
	}
	for (i = 0; i < pl->npts; i++) {
		*xlo = fmin(*xlo, pl->px[i]);
		*xhi = fmax(*xhi, pl->px[i]);
		*ylo = fmin(*ylo, pl->py[i]);
		*yhi = fmax(*yhi, pl->py[i]);
	}
	for (s = 0; s < pl->ncurves; s++)
		for (i = 0; i < pl->curves[s].n; i++) {
			*xlo = fmin(*xlo, pl->curves[s].x[i]);
			*xhi = fmax(*xhi, pl->curves[s].x[i]);
			*ylo = fmin(*ylo, pl->curves[s].y[i]);
			*yhi = fmax(*yhi, pl->curves[s].y[i]);
		}
	if (*ylo > 0)
		*ylo = 0; /* bars and amounts read best from zero */
	axis_range(xlo, xhi);
	axis_range(ylo, yhi);
}
