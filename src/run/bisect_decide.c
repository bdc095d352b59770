/* bisect: is bad slower, and is a version like good or like bad
 * (bisect.h)? */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/hypo.h"
#include "analyze/stats.h"
#include "run/bisect.h"
#include "run/rmit.h"
#include "util/common.h"
#include "util/error.h"

/* ---- interleaved: every decision measures its versions now ---- */

/* The rounds of one decision: good and bad, or good, a version and bad. */
struct rounds {
	struct bisect *b;
	struct side *sides[3];
	double now[3]; /* this round's value of each */
	bool midpoint; /* a version against the midpoint, not bad against good */
	double *d, *vs_good;
	size_t n;
	struct seq_test t;
	struct seq_look look;
};

static int rounds_measure(void *arg, size_t side, size_t round)
{
	struct rounds *r = arg;

	UNUSED(round);
	return side_measure_once(r->b, r->sides[side], &r->now[side]);
}

/* The last look at ln(@s / good) over the rounds, for the report. */
static void keep_vs_good(const struct rounds *r, struct side *s)
{
	struct seq_look *l = &s->vs_good;

	memset(l, 0, sizeof(*l));
	l->n = r->n;
	l->alpha_k = r->b->cp.alpha;
	seq_hodges_lehmann(r->vs_good, r->n, l->alpha_k, &l->est, &l->lo, &l->hi);
	l->p = seq_signed_rank_p(r->vs_good, r->n);
	s->have_vs_good = r->n > 0;
}

static int rounds_decide(void *arg, size_t rounds)
{
	struct rounds *r = arg;
	double g = r->now[0], x = r->now[1], bad = r->now[r->midpoint ? 2 : 1];

	UNUSED(rounds);
	/* A zero (user time sampled at ticks) has no ratio: the round is lost. */
	if (!(g > 0) || !(x > 0) || !(bad > 0))
		return 0;
	r->d = xrealloc(r->d, (r->n + 1) * sizeof(*r->d));
	r->vs_good = xrealloc(r->vs_good, (r->n + 1) * sizeof(*r->vs_good));
	r->d[r->n] = r->midpoint ? log(x) - (log(g) + log(bad)) / 2 : log(x / g);
	r->vs_good[r->n] = log(x / g);
	r->n++;
	if (!seq_due(&r->t, r->n))
		return 0;
	seq_look(&r->t, r->d, r->n, &r->look);
	if (r->look.verdict == SEQ_UNSURE && r->midpoint)
		bisect_progress(r->b,
				"%.7s: %+.1f%% .. %+.1f%% from the midpoint between good and bad "
				"after %zu rounds: measuring more",
				r->sides[1]->id, 100 * expm1(r->look.lo), 100 * expm1(r->look.hi),
				r->n);
	return r->look.verdict != SEQ_UNSURE;
}

/* Rounds of @nsides sides until the test is sure or --max-runs rounds. */
static int run_rounds(struct bisect *b, struct rounds *r, size_t nsides, double margin)
{
	struct rmit rm = {nsides, b->seed, rounds_measure, rounds_decide, r};
	struct rmit_budget budget = {b->max_runs, 0};
	enum rmit_stop why;
	size_t n;
	int ret;

	seq_init(&r->t, &(struct seq_params){b->cp.alpha, margin, b->runs});
	b->seed = b->seed * 6364136223846793005ULL + 1442695040888963407ULL;
	ret = rmit_run(&rm, &budget, &n, &why);
	/* The budget is spent: a last look at everything measured. */
	if (ret == 0 && why != RMIT_SURE && r->n)
		seq_look_last(&r->t, r->d, r->n, &r->look);
	return ret;
}

/* Bad is slower when it surely is (the interval of ln(bad / good) above
 * 0) by at least --min-effect (the estimate): asking the whole interval to
 * clear the minimum would turn away a real 5% slowdown on a noisy machine. */
static int bracket_rounds(struct bisect *b, struct side *good, struct side *bad, bool *slower)
{
	struct rounds r = {.b = b, .sides = {good, bad}};
	int ret = run_rounds(b, &r, 2, 0);

	if (ret == 0) {
		keep_vs_good(&r, bad);
		*slower = r.look.verdict == SEQ_ABOVE && r.look.est >= log1p(b->cp.min_effect);
	}
	if (ret == 0 && !*slower)
		bisect_say(b, BISECT_RESULT,
			   "%.7s is not slower than %.7s (%+.1f%% .. %+.1f%% after %zu rounds): "
			   "nothing to bisect",
			   bad->id, good->id, 100 * expm1(r.look.lo), 100 * expm1(r.look.hi), r.n);
	free(r.d);
	free(r.vs_good);
	return ret;
}

static int classify_rounds(struct bisect *b, struct side *good, struct side *bad, struct side *s,
			   int *verdict)
{
	struct rounds r = {.b = b, .sides = {good, s, bad}, .midpoint = true};
	int ret = run_rounds(b, &r, 3, 0);

	if (ret == 0) {
		keep_vs_good(&r, s);
		*verdict = r.look.verdict == SEQ_ABOVE ? 1 : r.look.verdict == SEQ_BELOW ? 0 : -1;
	}
	free(r.d);
	free(r.vs_good);
	return ret;
}

/* ---- --no-interleave: good and bad once at the start ---- */

/* The stat test's verdict of @target's runs against @base's. */
static enum change_class judge_blocks(const struct bisect *b, const struct side *base,
				      const struct side *target, double *rel)
{
	double lo, hi, u, p, mb = stats_median(base->v, base->n),
			     mt = stats_median(target->v, target->n);

	*rel = mb > 0 ? mt / mb - 1 : 0;
	if (!(mb > 0))
		return CH_UNKNOWN;
	p = hypo_mann_whitney(base->v, base->n, target->v, target->n, &u);
	hypo_bootstrap_median_ratio(base->v, base->n, target->v, target->n, b->cp.bootstrap_rounds,
				    b->cp.alpha, b->cp.seed, &lo, &hi);
	return degrade_classify_stat(mt / mb, lo, hi, p, &b->cp);
}

static int bracket_blocks(struct bisect *b, struct side *good, struct side *bad, bool *slower)
{
	int ret = side_measure_block(b, good, b->runs);

	if (ret == 0)
		ret = side_measure_block(b, bad, b->runs);
	while (ret == 0) {
		double rel;
		enum change_class c = judge_blocks(b, good, bad, &rel);

		*slower = change_is_degradation(c) && c != CH_MAYBE_DEGRADATION;
		if (*slower)
			return 0;
		if (bad->n >= b->max_runs) {
			bisect_say(b, BISECT_RESULT,
				   "%.7s is not slower than %.7s (%s, %+.1f%% after %zu runs): "
				   "nothing "
				   "to bisect",
				   bad->id, good->id, change_class_name(c), 100 * rel, bad->n);
			return 0;
		}
		ret = side_measure_block(b, good, b->runs);
		if (ret == 0)
			ret = side_measure_block(b, bad, b->runs);
	}
	return ret;
}

/* Like bad when the interval of its ratio to good lies wholly above the
 * geometric midpoint between good and bad, like good when below. */
static int classify_blocks(struct bisect *b, struct side *good, struct side *bad, struct side *s,
			   int *verdict)
{
	double mid = sqrt(stats_median(bad->v, bad->n) / stats_median(good->v, good->n));
	int ret = side_measure_block(b, s, b->runs);

	while (ret == 0) {
		double lo, hi;

		hypo_bootstrap_median_ratio(good->v, good->n, s->v, s->n, b->cp.bootstrap_rounds,
					    b->cp.alpha, b->cp.seed, &lo, &hi);
		if (lo > mid || hi < mid) {
			*verdict = lo > mid;
			return 0;
		}
		if (s->n >= b->max_runs) {
			*verdict = -1;
			return 0;
		}
		bisect_progress(b,
				"%.7s: %+.1f%% .. %+.1f%% against good, the midpoint is %+.1f%%: "
				"measuring more",
				s->id, 100 * (lo - 1), 100 * (hi - 1), 100 * (mid - 1));
		ret = side_measure_block(b, s, b->runs);
	}
	return ret;
}

/* ---- either way ---- */

int bisect_bracket(struct bisect *b, struct side *good, struct side *bad, bool *slower)
{
	bisect_progress(b, "measuring good %.7s and bad %.7s%s", good->id, bad->id,
			b->interleave ? ", interleaved" : "");
	return b->interleave ? bracket_rounds(b, good, bad, slower)
			     : bracket_blocks(b, good, bad, slower);
}

int bisect_classify(struct bisect *b, struct side *good, struct side *bad, struct side *s,
		    int *verdict)
{
	return b->interleave ? classify_rounds(b, good, bad, s, verdict)
			     : classify_blocks(b, good, bad, s, verdict);
}

enum change_class bisect_judge(const struct bisect *b, const struct side *good,
			       const struct side *s, double *rel, size_t *ngood, size_t *ns)
{
	const struct seq_look *l = &s->vs_good;
	double p;

	if (!b->interleave) {
		*ngood = good->n;
		*ns = s->n;
		return judge_blocks(b, good, s, rel);
	}
	*ngood = *ns = l->n;
	*rel = expm1(l->est);
	if (!s->have_vs_good)
		return CH_UNKNOWN;
	/* Sure (p 0) when the interval of the paired ratio excludes 1. */
	p = l->lo > 0 || l->hi < 0 ? 0 : 1;
	return degrade_classify_stat(exp(l->est), exp(l->lo), exp(l->hi), p, &b->cp);
}
