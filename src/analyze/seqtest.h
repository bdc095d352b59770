/*
 * A sequential test on paired differences, for measurements made in
 * interleaved rounds (RMIT: Abedi and Brecht, ICPE 2017): each round gives
 * one difference d = ln(target / baseline) (or any paired statistic), and
 * the test looks at the differences so far after some rounds and decides
 * once it is sure.
 *
 * At each look it forms the Hodges-Lehmann estimate of the differences'
 * pseudo-median and its distribution-free interval from the Wilcoxon
 * signed-rank distribution (exact up to 200 pairs, normal beyond), robust
 * to the one round a burst of load spoils. Looking again and again would
 * spend the error many times over, so interim look k gets
 * SEQ_INTERIM_SHARE alpha / (k (k + 1)) of it: those shares add up to at
 * most that part of alpha over any number of looks (a Bonferroni
 * alpha-spending rule that needs no planned maximum, so a time budget can
 * end the test anywhere), and the last look, when the budget is spent,
 * gets all that is left, at least the other part. Without that reserve
 * the last of some twelve looks had alpha / 156 and a real 2% slowdown
 * was called sure in 40% of trials on a loaded machine. Looks come at
 * first_look rounds and then each time the rounds grew by a quarter, so
 * few looks spend little.
 */
#ifndef ANALYZE_SEQTEST_H
#define ANALYZE_SEQTEST_H

#include <stdbool.h>
#include <stddef.h>

/* The part of alpha the interim looks may spend together. */
#define SEQ_INTERIM_SHARE 0.5

struct seq_params {
	double alpha;	   /* the error over every look together */
	double margin;	   /* smallest difference that counts (ln(1 + min effect));
			    * 0 asks only for the sign */
	size_t first_look; /* rounds before the first look; at least 8 can
			    * reach alpha 0.05's first share */
};

enum seq_verdict {
	SEQ_UNSURE, /* not yet: the interval straddles a margin */
	SEQ_ABOVE,  /* the whole interval above +margin */
	SEQ_BELOW,  /* the whole interval below -margin */
	SEQ_WITHIN, /* the whole interval within (-margin, +margin) */
};

struct seq_look {
	size_t n;	    /* differences looked at */
	unsigned k;	    /* the look's number, from 1 */
	double alpha_k;	    /* the error it spent */
	double est, lo, hi; /* estimate and (1 - alpha_k) interval; +-inf when
			     * too few pairs for that level */
	double p;	    /* signed-rank p-value of "pseudo-median 0" */
	enum seq_verdict verdict;
};

struct seq_test {
	struct seq_params p;
	unsigned looks;
	double spent; /* alpha the looks so far spent */
	size_t next;  /* rounds at the next look */
};

void seq_init(struct seq_test *t, const struct seq_params *p);
/* Whether @n differences are due for a look. */
bool seq_due(const struct seq_test *t, size_t n);
/* An interim look at @d[0..@n) (when due), spending the next share of
 * alpha. */
void seq_look(struct seq_test *t, const double *d, size_t n, struct seq_look *out);
/* The last look, when the budget is spent: at the level of all the alpha
 * the interim looks left. */
void seq_look_last(struct seq_test *t, const double *d, size_t n, struct seq_look *out);

/* The Hodges-Lehmann estimate of @d's pseudo-median (the median of its
 * Walsh averages) and its (1 - @alpha) interval. */
void seq_hodges_lehmann(const double *d, size_t n, double alpha, double *est, double *lo,
			double *hi);
/* Wilcoxon's signed-rank two-sided p-value of pseudo-median 0 (zeros
 * dropped, ties given mean ranks, normal approximation with continuity and
 * tie corrections); 1 when every difference is 0. */
double seq_signed_rank_p(const double *d, size_t n);

#endif
