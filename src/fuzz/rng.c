/* xoshiro256** (Blackman and Vigna), seeded with splitmix64. */
#include "fuzz/rng.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void fz_rng_seed(struct fz_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t fz_rng_next(struct fz_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

size_t fz_rng_below(struct fz_rng *r, size_t n)
{
	/* Lemire's multiply-shift: no modulo bias worth speaking of for the
	 * sizes a fuzzer draws, and no division. */
	if (n == 0)
		return 0;
	return (size_t)(((unsigned __int128)fz_rng_next(r) * n) >> 64);
}

size_t fz_rng_range(struct fz_rng *r, size_t lo, size_t hi)
{
	return hi <= lo ? lo : lo + fz_rng_below(r, hi - lo + 1);
}

double fz_rng_unit(struct fz_rng *r)
{
	return (double)(fz_rng_next(r) >> 11) * 0x1.0p-53;
}
