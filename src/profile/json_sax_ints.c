/*
 * jsax_ints() (json_sax.h): the integers of a flat array taken in a loop
 * of their own rather than one event each, the bulk of a profile's
 * columns; with SSE2, 64 bytes at a time.
 */
#include <stdbool.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "profile/json_sax.h"
#include "profile/json_sax_priv.h"

/* Skips blanks in the fast loop below, counting lines as json_sax.c's skip_ws() does;
 * stops at the end of the buffer. */
static const char *skip_blanks(struct jsax *j, const char *p)
{
	for (; p < j->end; p++) {
		if (*p == ' ' || *p == '\t' || *p == '\r')
			continue;
		if (*p != '\n')
			return p;
		j->line++;
		j->line_start = offset_of(j, p + 1);
	}
	return p;
}

#ifdef __SSE2__
/* Bit i set where @p[i] is a ',', for 64 bytes. */
static inline uint64_t comma_mask(const char *p)
{
	const __m128i comma = _mm_set1_epi8(',');
	uint64_t m = 0;
	int k;

	for (k = 0; k < 4; k++) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));

		m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, comma)) << (16 * k);
	}
	return m;
}

/*
 * The integers of a plain run `,N,N` or `, N, N` from the ',' at @p, 64
 * bytes of input at a time: the separators come from one mask, so each
 * number's length is known before it is read and no number waits for the
 * one before it to be parsed. Stops (at the ',' before it) at anything
 * else: a sign, more than 8 digits, a leading zero, a line break, the
 * array's end. Returns the count; *@at is where the caller goes on.
 */
static size_t ints_by_block(const char *p, const char *lim, int64_t *out, size_t max,
			    const char **at)
{
	const char *next = p + 1; /* after the last ',' taken */
	size_t n = 0;

	while (next + 63 <= lim && n + 32 <= max) {
		const char *base = next - 1, *s;
		uint64_t m = comma_mask(base) & ~(uint64_t)1;

		if (!m)
			break;
		do {
			const char *c = base + __builtin_ctzll(m);
			uint64_t v;
			size_t len;

			s = next + (*next == ' ');
			len = (size_t)(c - s);
			if (len - 1 >= 8 || !digits_n(s, len, &v) || (*s == '0' && len > 1))
				goto out;
			out[n++] = (int64_t)v;
			next = c + 1;
			m &= m - 1;
		} while (m);
	}
out:
	*at = next - 1;
	return n;
}
#endif

size_t jsax_ints(struct jsax *j, int64_t *out, size_t max)
{
	const char *p = j->p, *safe = j->end - 64, *q;
	/* The line count as of the last integer: blanks counted past it are
	 * counted again by whoever reads on. */
	uint64_t line = j->line;
	int64_t line_start = j->line_start;
	bool blanks = false; /* skip_blanks() ran since the last integer */
	int st = j->state;
	size_t n = 0, retry = 0;

	if (!j->depth || j->stack[j->depth - 1] != '[' ||
	    (st != ST_AFTER && st != ST_ARR_FIRST && st != ST_ARR_NEXT))
		return 0;
	/* Stays well inside the buffer, so nothing here needs a refill. */
	while (n < max && p < safe) {
		q = p;
#ifdef __SSE2__
		/* After a stop, eight numbers the careful way first, so a run
		 * the block reader cannot take costs it little. */
		if (st == ST_AFTER && *q == ',' && !blanks && n >= retry) {
			size_t got = ints_by_block(q, safe, out + n, max - n, &q);

			n += got;
			p = q;
			retry = n + 8;
			if (n >= max || p >= safe)
				break;
		}
#endif
		if (st == ST_AFTER) {
			if (*q != ',') {
				if (!blanks) {
					line = j->line;
					line_start = j->line_start;
					blanks = true;
				}
				q = skip_blanks(j, q);
				if (q >= safe || *q != ',')
					break;
			}
			q++;
		}
		/* json.dump writes ", ": one blank is the common case. */
		if (*q == ' ')
			q++;
		if ((unsigned char)*q <= ' ') {
			if (!blanks) {
				line = j->line;
				line_start = j->line_start;
				blanks = true;
			}
			q = skip_blanks(j, q);
			if (q >= safe)
				break;
		}
		/* What may follow is checked here: a ',', a ']' or a blank. */
		q = int_digits(q, &out[n]);
		if (!q || (*q != ',' && *q != ']' && (unsigned char)*q > ' '))
			break;
		n++;
		p = q;
		st = ST_AFTER;
		blanks = false;
	}
	if (blanks) {
		j->line = line;
		j->line_start = line_start;
	}
	j->p = p;
	j->state = st;
	return n;
}
