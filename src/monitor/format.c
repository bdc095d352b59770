/* Number and time formatting fast enough for a million lines a second. */
#include <math.h>
#include <string.h>
#include <time.h>

#include "monitor/format.h"
#include "util/common.h"

static const double scale10[] = {1, 10, 100, 1000, 10000, 100000, 1000000};

/* A whole number, two digits at a time: the common case of plot output. */
static size_t fmt_uint(char *dst, uint64_t x)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	char tmp[24];
	size_t n = sizeof(tmp), len;

	while (x >= 100) {
		n -= 2;
		memcpy(tmp + n, pairs + 2 * (x % 100), 2);
		x /= 100;
	}
	if (x >= 10) {
		n -= 2;
		memcpy(tmp + n, pairs + 2 * x, 2);
	} else {
		tmp[--n] = (char)('0' + x);
	}
	len = sizeof(tmp) - n;
	memcpy(dst, tmp + n, len);
	dst[len] = '\0';
	return len;
}

size_t mon_fmt_fixed(char *dst, double v, int decimals)
{
	if (decimals <= 0 && v >= 0 && v < 1e18)
		return fmt_uint(dst, (uint64_t)(v + 0.5));
	char tmp[32];
	size_t n = 0, len = 0;
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
	x = (uint64_t)(v * scale10[decimals] + 0.5);
	do {
		tmp[n++] = (char)('0' + x % 10);
		x /= 10;
		if ((int)n == decimals)
			tmp[n++] = '.';
	} while (x || (int)n <= decimals + (decimals > 0));
	if (len == 1 && n == 1 && tmp[0] == '0')
		len = 0; /* "-0" after rounding */
	while (n)
		dst[len++] = tmp[--n];
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

/* "20261122 05:01:02" for the whole second, cached: consecutive samples
 * usually share the minute and format only the seconds. */
size_t mon_fmt_time(char *dst, double t, bool date, bool millis)
{
	static time_t last = -1;
	static char whole[32];
	time_t s = (time_t)floor(t);
	size_t n;

	if (s != last) {
		struct tm tm;

		localtime_r(&s, &tm);
		strftime(whole, sizeof(whole), "%Y%m%d %H:%M:%S", &tm);
		last = s;
	}
	n = date ? strlen(whole) : strlen(whole) - 9;
	memcpy(dst, date ? whole : whole + 9, n);
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
