/* Number and time formatting fast enough for a million lines a second. */
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "monitor/format.h"
#include "monitor/monitor.h"
#include "util/buf.h"
#include "util/common.h"

void mon_say(mon_say_fn say, void *arg, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	if (!say)
		return;
	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	say(arg, buf_str(&b));
	buf_release(&b);
}

static const double scale10[] = {1, 10, 100, 1000, 10000, 100000, 1000000};

/* A whole number, two digits at a time, written from its last digit back
 * (no copy: this is the common case of plot output). */
static size_t fmt_uint(char *dst, uint64_t x)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	static const uint64_t pow10[] = {1ull,
					 10ull,
					 100ull,
					 1000ull,
					 10000ull,
					 100000ull,
					 1000000ull,
					 10000000ull,
					 100000000ull,
					 1000000000ull,
					 10000000000ull,
					 100000000000ull,
					 1000000000000ull,
					 10000000000000ull,
					 100000000000000ull,
					 1000000000000000ull,
					 10000000000000000ull,
					 100000000000000000ull,
					 1000000000000000000ull,
					 10000000000000000000ull};
	if (x < 10) { /* zeros fill most plot lines */
		dst[0] = (char)('0' + x);
		dst[1] = '\0';
		return 1;
	}
	/* The digits from the bit length (1233 / 4096 is about log10 2), then
	 * one comparison: no loop over the powers of ten. */
	unsigned bits = 64 - (unsigned)__builtin_clzll(x | 1);
	unsigned t = (bits * 1233) >> 12;
	size_t len = t + 1 - (x < pow10[t]);
	char *p;

	p = dst + len;
	*p = '\0';
	while (x >= 100) {
		const char *d = pairs + 2 * (x % 100);

		*--p = d[1];
		*--p = d[0];
		x /= 100;
	}
	if (x >= 10) {
		*--p = pairs[2 * x + 1];
		*--p = pairs[2 * x];
	} else {
		*--p = (char)('0' + x);
	}
	return len;
}

size_t mon_fmt_fixed(char *dst, double v, int decimals)
{
	if (decimals <= 0 && v >= 0 && v < 1e18)
		return fmt_uint(dst, (uint64_t)(v + 0.5));
	size_t len = 0;
	uint64_t x;

	if (decimals < 0)
		decimals = 0;
	if (decimals > 6)
		decimals = 6;
	if (!isfinite(v) || fabs(v) >= 1e18)
		v = 0;
	if (v < 0) {
		dst[len++] = '-';
		v = -v;
	}
	while (decimals && v * scale10[decimals] >= 1e19)
		decimals--; /* too large for the decimals in 64 bits */
	x = (uint64_t)(v * scale10[decimals] + 0.5);
	if (!decimals) {
		if (!x)
			len = 0; /* "-0" after rounding */
		return len + fmt_uint(dst + len, x);
	}
	/* The whole part two digits at a time, then the decimals. */
	uint64_t frac = x % (uint64_t)scale10[decimals];

	len += fmt_uint(dst + len, x / (uint64_t)scale10[decimals]);
	dst[len++] = '.';
	for (int i = decimals - 1; i >= 0; i--) {
		dst[len + (size_t)i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	len += (size_t)decimals;
	dst[len] = '\0';
	return len;
}

size_t mon_cvt(char *dst, double v, int width, bool size)
{
	static const char units[] = "KMGTP";
	size_t n = mon_fmt_fixed(dst, v, 0);
	/* Sizes arrive in KB, so their first step is M. */
	const char *u = size ? units + 1 : units;
	double div = size ? 1024 : 1000;

	if ((int)n <= width)
		return n;
	for (; *u; u++) {
		v /= div;
		n = mon_fmt_fixed(dst, v, 0);
		if ((int)n + 1 <= width || !u[1]) {
			dst[n++] = *u;
			dst[n] = '\0';
			break;
		}
	}
	return n;
}

size_t mon_fmt_pad(char *dst, const char *s, size_t n, int width)
{
	size_t pad = (int)n < width ? (size_t)width - n : 0;

	memset(dst, ' ', pad);
	memcpy(dst + pad, s, n);
	dst[pad + n] = '\0';
	return pad + n;
}

/* "20261122 05:01:" of the minute, with its start: a live sample each
 * second then costs two digits, not localtime_r and strftime (some 8 us a
 * sample when the caches have gone cold over the second between samples).
 * Zones change their offset from UTC at whole minutes of their own time,
 * so a minute's date, hour and minute hold for its 60 seconds; a minute
 * that a change of offset cuts (a rule with seconds) is not cached. */
struct minute {
	time_t start; /* the minute's first second, or -1 */
	bool steady;  /* one offset from UTC over the whole minute */
	char text[32];
};

static void minute_fill(struct minute *m, time_t s)
{
	struct tm tm, end;
	time_t last;

	localtime_r(&s, &tm);
	strftime(m->text, sizeof(m->text), "%Y%m%d %H:%M:", &tm);
	/* tm_sec is 60 on a leap second: the minute began 60 s before. */
	m->start = s - tm.tm_sec;
	last = m->start + 59;
	localtime_r(&last, &end);
	m->steady = end.tm_gmtoff == tm.tm_gmtoff;
}

size_t mon_fmt_time(char *dst, double t, bool date, bool millis)
{
	static struct minute m = {.start = -1};
	time_t s = (time_t)floor(t);
	time_t sec = s - m.start;
	size_t n;

	if (m.start < 0 || !m.steady || sec < 0 || sec >= 60) {
		minute_fill(&m, s);
		sec = s - m.start;
	}
	n = date ? 15 : 6; /* "YYYYmmdd HH:MM:" or "HH:MM:" */
	memcpy(dst, date ? m.text : m.text + 9, n);
	dst[n++] = (char)('0' + sec / 10);
	dst[n++] = (char)('0' + sec % 10);
	if (millis) {
		int ms = (int)((t - (double)s) * 1000);

		if (ms > 999)
			ms = 999;
		dst[n++] = '.';
		dst[n++] = (char)('0' + ms / 100);
		dst[n++] = (char)('0' + ms / 10 % 10);
		dst[n++] = (char)('0' + ms % 10);
	}
	dst[n] = '\0';
	return n;
}
