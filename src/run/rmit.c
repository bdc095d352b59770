/* Randomised multiple interleaved trials (rmit.h). */
#include <time.h>

#include "run/rmit.h"
#include "util/common.h"
#include "util/spawn.h"

/* splitmix64: small, seedable, good enough to shuffle a handful of sides. */
static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void rmit_order(uint64_t *state, size_t n, size_t *order)
{
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(next(state) % i), t = order[i - 1];

		order[i - 1] = order[j];
		order[j] = t;
	}
}

const char *rmit_stop_text(enum rmit_stop why)
{
	return why == RMIT_SURE	    ? "sure"
	       : why == RMIT_ROUNDS ? "--max-rounds reached"
				    : "--time spent";
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Every side once, in a fresh random order. */
static int round_run(const struct rmit *r, uint64_t *state, size_t round)
{
	size_t order[8];
	int ret = 0;

	rmit_order(state, r->nsides, order);
	for (size_t i = 0; i < r->nsides && ret == 0; i++) {
		if (spawn_interrupted())
			return err_set(ERR_INTERRUPTED, "interrupted in round %zu", round);
		ret = r->measure(r->arg, order[i], round);
	}
	return ret;
}

int rmit_run(const struct rmit *r, const struct rmit_budget *b, size_t *rounds, enum rmit_stop *why)
{
	uint64_t state = r->seed;
	double start = now_seconds();
	int ret;

	*rounds = 0;
	*why = RMIT_ROUNDS;
	if (r->nsides == 0 || r->nsides > 8 || b->max_rounds == 0)
		return err_set(ERR_INVALID, "interleaved rounds need 1 to 8 sides and a round");
	ret = round_run(r, &state, 0);
	while (ret == 0) {
		ret = round_run(r, &state, *rounds + 1);
		if (ret < 0)
			break;
		++*rounds;
		ret = r->decide(r->arg, *rounds);
		if (ret > 0) {
			*why = RMIT_SURE;
			return 0;
		}
		if (ret < 0)
			break;
		if (*rounds >= b->max_rounds)
			return 0;
		if (b->max_seconds > 0 && now_seconds() - start >= b->max_seconds) {
			*why = RMIT_TIME;
			return 0;
		}
	}
	return ret;
}
