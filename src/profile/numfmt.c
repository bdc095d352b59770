#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/numfmt.h"
#include "util/common.h"

/* Every power of ten up to 1e22 is exact in a double (Clinger 1990). */
static const double pow10_tab[23] = {
	1e0,  1e1,  1e2,  1e3,	1e4,  1e5,  1e6,  1e7,	1e8,  1e9,  1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

#define TWO53 9007199254740992.0

static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324"
				     "25262728293031323334353637383940414243444546474849"
				     "50515253545556575859606162636465666768697071727374"
				     "75767778798081828384858687888990919293949596979899";

static size_t ndigits(uint64_t v)
{
	size_t n = 1;

	for (;;) {
		if (v < 10)
			return n;
		if (v < 100)
			return n + 1;
		if (v < 1000)
			return n + 2;
		if (v < 10000)
			return n + 3;
		v /= 10000;
		n += 4;
	}
}

/* Two digits per division, written from the right. */
static size_t utoa_loop(char *dst, uint64_t v)
{
	size_t n = ndigits(v);
	char *p = dst + n;

	while (v >= 100) {
		const char *d = digit_pairs + (v % 100) * 2;

		v /= 100;
		*--p = d[1];
		*--p = d[0];
	}
	if (v >= 10) {
		*--p = digit_pairs[v * 2 + 1];
		*--p = digit_pairs[v * 2];
	} else {
		*--p = (char)('0' + v);
	}
	return n;
}

static size_t utoa(char *dst, uint64_t v)
{
	if (!NUMFMT_SMALL_OK((int64_t)v) || v > INT64_MAX)
		return utoa_loop(dst, v);
	return numfmt_small(dst, (uint32_t)v);
}

size_t numfmt_i64(char *dst, int64_t v)
{
	if (v < 0) {
		dst[0] = '-';
		/* Negating in unsigned arithmetic keeps INT64_MIN defined. */
		return 1 + utoa(dst + 1, 0 - (uint64_t)v);
	}
	return utoa(dst, (uint64_t)v);
}

/*
 * Prints |m| with a decimal point @k digits from the right (k <= 17, m below
 * 2^53), to NUMFMT_MAX bytes of room. Built in a scratch line with
 * fixed-size copies, which the compiler inlines, then copied out whole.
 */
static size_t put_scaled(char *dst, bool neg, uint64_t m, int k)
{
	char d[48], t[48];
	size_t nd = ndigits(m), w = nd > (size_t)k ? nd : (size_t)k + 1, ip = w - (size_t)k;
	size_t n = neg;

	memset(d, '0', 24);
	utoa(d + w - nd, m);
	t[0] = '-';
	memcpy(t + n, d, 24);
	t[n + ip] = '.';
	memcpy(t + n + ip + 1, d + ip, 24);
	if (k == 0)
		t[n + ip + 1] = '0';
	memcpy(dst, t, NUMFMT_MAX);
	return n + ip + 1 + (k ? (size_t)k : 1);
}

static size_t fmt_slow(char *dst, double v)
{
	char tmp[NUMFMT_MAX];
	int prec, n = 0;

	/* The shortest of 15..17 significant digits that reads back exactly. */
	for (prec = 15; prec <= 17; prec++) {
		n = snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	memcpy(dst, tmp, (size_t)n);
	if (!strpbrk(tmp, ".eE")) {
		dst[n++] = '.';
		dst[n++] = '0';
	}
	return (size_t)n;
}

size_t numfmt_f64(char *dst, double v)
{
	double a = fabs(v);
	int k;

	if (!isfinite(v)) {
		memcpy(dst, "null", 4);
		return 4;
	}
	if (a == 0)
		return put_scaled(dst, signbit(v) != 0, 0, 0);
	if (a < TWO53 && a >= 1e-7) {
		for (k = 0; k <= 17; k++) {
			double s = a * pow10_tab[k];
			double m;

			if (s >= TWO53)
				break;
			m = nearbyint(s);
			if (m / pow10_tab[k] == a)
				return put_scaled(dst, v < 0, (uint64_t)m, k);
		}
	}
	return fmt_slow(dst, v);
}

/* Below this, the digits of k + 1 decimals are ten times those of k
 * whenever k decimals read back exactly (the rounding errors stay under a
 * quarter), so the first k that works is the one numfmt_f64 finds. */
#define TWO50 1125899906842624.0

/* Rounding half up instead of to even as nearbyint() does changes nothing:
 * a product that works is never near a half (callers keep it below 2^50,
 * where adding 0.5 is exact). */
static bool scaled_exact(double a, int k, double *m)
{
	*m = (double)(int64_t)(a * pow10_tab[k] + 0.5);
	return *m / pow10_tab[k] == a;
}

size_t numfmt_f64_hint(char *dst, double v, int *hint)
{
	double a = fabs(v), m, m1;
	int k = *hint;

	if (k > 0 && k <= 17 && a >= 1e-7 && a * pow10_tab[k] < TWO50 && scaled_exact(a, k, &m) &&
	    !scaled_exact(a, k - 1, &m1))
		return put_scaled(dst, v < 0, (uint64_t)m, k);
	for (k = 0; k <= 17 && a >= 1e-7 && a * pow10_tab[k] < TWO50; k++)
		if (scaled_exact(a, k, &m)) {
			*hint = k;
			return put_scaled(dst, v < 0, (uint64_t)m, k);
		}
	return numfmt_f64(dst, v);
}

static enum numfmt_kind parse_slow(const char *s, size_t n, double *d)
{
	char tmp[64];
	char *heap = NULL, *str = tmp;

	if (n >= sizeof(tmp))
		str = heap = xmalloc(n + 1);
	memcpy(str, s, n);
	str[n] = '\0';
	*d = strtod(str, NULL);
	free(heap);
	return NUM_DBL;
}

enum numfmt_kind numfmt_parse(const char *s, size_t n, int64_t *i, double *d)
{
	const char *p = s, *e = s + n;
	bool neg = false, exact = true;
	uint64_t m = 0;
	int nd = 0, exp10 = 0, ex = 0, exsign = 1;

	if (p < e && *p == '-') {
		neg = true;
		p++;
	}
	if (p == e || (unsigned)(*p - '0') > 9)
		return NUM_BAD;
	if (*p == '0' && p + 1 < e && (unsigned)(p[1] - '0') <= 9)
		return NUM_BAD; /* JSON forbids leading zeros */
	for (; p < e && (unsigned)(*p - '0') <= 9; p++) {
		if (nd < 19) {
			m = m * 10 + (uint64_t)(*p - '0');
			if (m)
				nd++;
		} else {
			exp10++;
			exact &= *p == '0';
		}
	}
	if (p == e && exp10 == 0) {
		if (!neg && m <= INT64_MAX) {
			*i = (int64_t)m;
			return NUM_INT;
		}
		if (neg && m <= (uint64_t)INT64_MAX + 1) {
			*i = (int64_t)(0 - m);
			return NUM_INT;
		}
	}
	if (p < e && *p == '.') {
		const char *f = ++p;

		for (; p < e && (unsigned)(*p - '0') <= 9; p++) {
			if (nd < 19) {
				m = m * 10 + (uint64_t)(*p - '0');
				if (m)
					nd++;
				exp10--;
			} else {
				exact &= *p == '0';
			}
		}
		if (p == f)
			return NUM_BAD;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		const char *f;

		p++;
		if (p < e && (*p == '+' || *p == '-'))
			exsign = *p++ == '-' ? -1 : 1;
		for (f = p; p < e && (unsigned)(*p - '0') <= 9; p++)
			if (ex < 100000)
				ex = ex * 10 + (*p - '0');
		if (p == f)
			return NUM_BAD;
		exp10 += exsign * ex;
	}
	if (p != e)
		return NUM_BAD;
	if (exact && m < (1ULL << 53) && exp10 >= -22 && exp10 <= 22) {
		double v = (double)m;

		v = exp10 < 0 ? v / pow10_tab[-exp10] : v * pow10_tab[exp10];
		*d = neg ? -v : v;
		return NUM_DBL;
	}
	return parse_slow(s, n, d);
}
