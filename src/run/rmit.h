/*
 * Randomised multiple interleaved trials (RMIT: Abedi and Brecht,
 * "Conducting Repeatable Experiments in Highly Variable Cloud Computing
 * Environments", ICPE 2017): the versions compared are measured in rounds,
 * each round running every version once in a fresh random order, so that
 * a machine getting busier or quieter over time slows all of them alike
 * instead of the one measured last. The first round warms the caches and
 * is not counted. After each counted round the caller's decide() says
 * whether the answer is sure; the rounds end then or when the budget is
 * spent.
 */
#ifndef RUN_RMIT_H
#define RUN_RMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rmit_budget {
	size_t max_rounds;  /* counted rounds at most (> 0) */
	double max_seconds; /* wall time at most, warm-up included; 0: no limit */
};

enum rmit_stop {
	RMIT_SURE,   /* decide() said so */
	RMIT_ROUNDS, /* max_rounds reached */
	RMIT_TIME,   /* max_seconds passed */
};

struct rmit {
	size_t nsides;
	uint64_t seed; /* the order's random generator */
	/* One measurement of @side; @round 0 is the warm-up. */
	int (*measure)(void *arg, size_t side, size_t round);
	/* After counted round @rounds: 1 to stop (sure), 0 to go on, or an
	 * error. */
	int (*decide)(void *arg, size_t rounds);
	void *arg;
};

/*
 * Runs rounds until decide() stops them or the budget is spent; *@rounds
 * is the counted rounds, *@why why they ended. ERR_INTERRUPTED on Ctrl-C
 * (spawn_signals_install), else measure()'s or decide()'s error.
 */
int rmit_run(const struct rmit *r, const struct rmit_budget *b, size_t *rounds,
	     enum rmit_stop *why);

/* A random order of @n sides into @order (Fisher-Yates on *@state). */
void rmit_order(uint64_t *state, size_t n, size_t *order);

/* "sure", "--max-rounds reached", "--time spent". */
const char *rmit_stop_text(enum rmit_stop why);

#endif
