#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/numfmt.h"
#include "util/common.h"

#if defined(__x86_64__) && defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#include <immintrin.h>
#define HAVE_AVX2_PATH 1
#endif

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

size_t numfmt_num(char *dst, double v)
{
	return numfmt_is_whole(v) ? numfmt_i64(dst, (int64_t)v) : numfmt_f64(dst, v);
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

static inline char *put_i32(char *d, int32_t x)
{
	return d + (NUMFMT_SMALL_OK(x) ? numfmt_small(d, (uint32_t)x) : numfmt_i64(d, x));
}

#ifdef HAVE_AVX2_PATH
/*
 * numfmt_small() on four values at once: the same steps (a split into two
 * halves of four digits, then pairs, then digits, each a multiply by a
 * reciprocal) on 64-bit lanes, then each lane stored as the scalar code
 * stores its word.
 */
__attribute__((target("avx2"))) static char *
i32_list_avx2(char *d, const int32_t *v, size_t n, const char *sep, size_t seplen, size_t *done)
{
	const __m256i r10000 = _mm256_set1_epi64x(3518437209LL); /* 2^45 / 1e4, rounded up */
	const __m256i e4 = _mm256_set1_epi64x(10000), r100 = _mm256_set1_epi32(10486);
	const __m256i e2 = _mm256_set1_epi32(100), r10 = _mm256_set1_epi16(103);
	const __m256i e1 = _mm256_set1_epi16(10), top = _mm256_set1_epi32(100000000);
	size_t k = 0, i;

	for (; k + 4 <= n; k += 4) {
		__m128i raw = _mm_loadu_si128((const __m128i *)(const void *)(v + k));
		/* In range when 0 <= x < 1e8 as a signed compare says. */
		__m128i bad = _mm_or_si128(_mm_cmpgt_epi32(_mm_setzero_si128(), raw),
					   _mm_cmpgt_epi32(raw, _mm256_castsi256_si128(top)));
		__m256i x, hi, q;
		uint64_t lane[4];

		if (!_mm_testz_si128(bad, bad)) {
			for (i = 0; i < 4; i++) {
				memcpy(d, sep, 2);
				d = put_i32(d + seplen, v[k + i]);
			}
			continue;
		}
		x = _mm256_cvtepu32_epi64(raw);
		hi = _mm256_srli_epi64(_mm256_mul_epu32(x, r10000), 45);
		x = _mm256_or_si256(
			hi, _mm256_slli_epi64(_mm256_sub_epi64(x, _mm256_mul_epu32(hi, e4)), 32));
		q = _mm256_srli_epi32(_mm256_mullo_epi32(x, r100), 20);
		x = _mm256_or_si256(
			q, _mm256_slli_epi32(_mm256_sub_epi32(x, _mm256_mullo_epi32(q, e2)), 16));
		q = _mm256_srli_epi16(_mm256_mullo_epi16(x, r10), 10);
		x = _mm256_or_si256(
			q, _mm256_slli_epi16(_mm256_sub_epi16(x, _mm256_mullo_epi16(q, e1)), 8));
		_mm256_storeu_si256((__m256i *)(void *)lane, x);
		for (i = 0; i < 4; i++) {
			uint64_t w = lane[i];
			size_t len = w ? 8 - (size_t)__builtin_ctzll(w) / 8 : 1;

			memcpy(d, sep, 2);
			d += seplen;
			w = (w + 0x3030303030303030ULL) >> (8 * (8 - len));
			memcpy(d, &w, 8);
			d += len;
		}
	}
	*done = k;
	return d;
}
#endif

char *numfmt_i32_list(char *dst, const int32_t *v, size_t n, const char *sep, size_t seplen)
{
	size_t k = 0;

#ifdef HAVE_AVX2_PATH
	if (__builtin_cpu_supports("avx2"))
		dst = i32_list_avx2(dst, v, n, sep, seplen, &k);
#endif
	for (; k < n; k++) {
		memcpy(dst, sep, 2);
		dst = put_i32(dst + seplen, v[k]);
	}
	return dst;
}
