/*
 * The fuzzer's random numbers: xoshiro256** seeded through splitmix64, so
 * one 64-bit seed (--seed) fixes every choice and the state (four words)
 * can be saved and resumed.
 */
#ifndef FUZZ_RNG_H
#define FUZZ_RNG_H

#include <stddef.h>
#include <stdint.h>

struct fz_rng {
	uint64_t s[4];
};

void fz_rng_seed(struct fz_rng *r, uint64_t seed);
uint64_t fz_rng_next(struct fz_rng *r);
/* Uniform in [0, n); 0 when n is 0. */
size_t fz_rng_below(struct fz_rng *r, size_t n);
/* Uniform in [lo, hi]. */
size_t fz_rng_range(struct fz_rng *r, size_t lo, size_t hi);
/* Uniform in [0, 1). */
double fz_rng_unit(struct fz_rng *r);

#endif
