/* The corpus, the choice of parents, the worst list and the cost curve. */
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_priv.h"
#include "util/common.h"

uint64_t fz_hash(const uint8_t *data, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ data[i]) * 0x100000001b3ull;
	return h;
}

uint32_t fz_corpus_add(struct fz_session *s, const uint8_t *data, size_t len, double cost,
		       uint32_t parent, const char *rules)
{
	struct fz_entry *e;
	uint32_t id = (uint32_t)s->n;

	s->e = xgrow(s->e, sizeof(*s->e), s->n + 1, &s->cap);
	e = &s->e[s->n++];
	memset(e, 0, sizeof(*e));
	e->data = xmalloc(len + 1);
	if (len)
		memcpy(e->data, data, len);
	e->len = len;
	e->cost = cost;
	e->parent = parent;
	e->seed = parent == FZ_NO_ENTRY;
	e->depth = parent == FZ_NO_ENTRY ? 0 : s->e[parent].depth + 1;
	e->found_run = s->runs;
	e->rules = rules && *rules ? xstrdup(rules) : NULL;
	s->ntop = xgrow(s->ntop, sizeof(*s->ntop), s->n, &s->ntop_cap);
	s->ntop[id] = 0;
	return id;
}

static int by_cost(const void *a, const void *b, void *arg)
{
	const struct fz_session *s = arg;
	double x = s->e[*(const uint32_t *)a].cost;
	double y = s->e[*(const uint32_t *)b].cost;

	return (x > y) - (x < y);
}

static void sort_order(struct fz_session *s)
{
	if (s->norder == s->n)
		return;
	s->order = xrealloc(s->order, s->n * sizeof(*s->order));
	for (size_t i = 0; i < s->n; i++)
		s->order[i] = (uint32_t)i;
	qsort_r(s->order, s->n, sizeof(*s->order), by_cost, s);
	s->norder = s->n;
}

/*
 * The input that holds the highest count of an edge (PerfFuzz's favoured
 * inputs), the edge drawn evenly or (@weighted) with a weight of how many
 * times its count grew over the seeds': the loops that run longer and longer are where a cost
 * that grows faster than the input hides, long before the cost itself
 * stands out of the noise. FZ_NO_ENTRY when no edge has a holder.
 */
static uint32_t pick_favoured(struct fz_session *s, bool weighted)
{
	const struct fz_cover *c = &s->cov;
	double total = 0, draw;

	for (uint32_t e = 1; e <= c->nedges; e++)
		if (c->top[e] != FZ_NO_ENTRY)
			total += weighted ? fz_cover_growth(c, e) : 1;
	if (!(total > 0))
		return FZ_NO_ENTRY;
	draw = fz_rng_unit(&s->rng) * total;
	for (uint32_t e = 1; e <= c->nedges; e++) {
		if (c->top[e] == FZ_NO_ENTRY)
			continue;
		draw -= weighted ? fz_cover_growth(c, e) : 1;
		if (draw < 0)
			return c->top[e];
	}
	return FZ_NO_ENTRY;
}

/*
 * Perun's choice (factory.py, choose_parent): the entries sorted by
 * fitness are cut into five intervals weighted 1 to 5, the costliest
 * weighing most; one interval is drawn, then one entry in it. The cheaper
 * entries still get mutated now and then, which keeps the search wide.
 */
static uint32_t pick_interval(struct fz_session *s)
{
	size_t width, first, last, draw, i = 0;

	sort_order(s);
	if (s->n < 5)
		return s->order[fz_rng_below(&s->rng, s->n)];
	draw = fz_rng_below(&s->rng, 15);
	while ((i + 1) * (i + 2) / 2 <= draw)
		i++;
	width = s->n / 5;
	first = i * width;
	last = i == 4 ? s->n : first + width;
	return s->order[fz_rng_range(&s->rng, first, last - 1)];
}

/*
 * The entry that costs most. Greedy choices climb fastest; the other
 * choices keep the search from settling on one hill. (Not the one that
 * passes the most edges: more of a cheap loop's passes raise that sum
 * without raising the cost.)
 */
static uint32_t pick_costliest(const struct fz_session *s)
{
	uint32_t best = 0;

	for (uint32_t i = 1; i < s->n; i++)
		if (s->e[i].cost > s->e[best].cost)
			best = i;
	return best;
}

uint32_t fz_corpus_pick(struct fz_session *s)
{
	uint32_t id = FZ_NO_ENTRY;
	size_t draw = fz_rng_below(&s->rng, 4);

	if (draw == 0)
		return pick_costliest(s);
	/* Every edge's holder in turn, as PerfFuzz: an edge no seed reached
	 * has grown from nothing, and gets its share here. */
	if (draw >= 2 && s->use_cov)
		id = pick_favoured(s, draw == 2);
	return id != FZ_NO_ENTRY ? id : pick_interval(s);
}

static void kept_set(struct fz_kept *k, const uint8_t *data, size_t len, double cost, uint64_t run,
		     const char *rules)
{
	free(k->data);
	free(k->rules);
	k->data = xmalloc(len + 1);
	if (len)
		memcpy(k->data, data, len);
	k->len = len;
	k->cost = cost;
	k->found_run = run;
	k->rules = rules && *rules ? xstrdup(rules) : NULL;
}

static void note_worst(struct fz_session *s, const uint8_t *data, size_t len, double cost,
		       const char *rules)
{
	size_t slot = s->nworst, i;
	struct fz_kept t;

	/* The same input measured again: one slot, its highest cost. */
	for (i = 0; i < s->nworst; i++)
		if (s->worst[i].len == len && memcmp(s->worst[i].data, data, len) == 0) {
			if (cost <= s->worst[i].cost)
				return;
			s->worst[i].cost = cost;
			slot = i;
			break;
		}
	if (i == s->nworst) {
		if (s->nworst == FZ_NWORST) {
			if (cost <= s->worst[FZ_NWORST - 1].cost)
				return;
			slot = FZ_NWORST - 1;
		} else {
			slot = s->nworst++;
			memset(&s->worst[slot], 0, sizeof(s->worst[slot]));
		}
		kept_set(&s->worst[slot], data, len, cost, s->runs, rules);
	}
	/* Bubble it up to its place: the list stays sorted, costliest first. */
	while (slot > 0 && s->worst[slot - 1].cost < s->worst[slot].cost) {
		t = s->worst[slot - 1];
		s->worst[slot - 1] = s->worst[slot];
		s->worst[slot] = t;
		slot--;
	}
}

void fz_note_cost(struct fz_session *s, const uint8_t *data, size_t len, double cost,
		  const char *rules)
{
	note_worst(s, data, len, cost, rules);
	fz_env_put(s, len, cost);
}

void fz_env_put(struct fz_session *s, size_t len, double cost)
{
	size_t bin = s->max_size ? len * FZ_ENV_BINS / (s->max_size + 1) : 0;
	struct fz_point *p;

	if (bin >= FZ_ENV_BINS)
		bin = FZ_ENV_BINS - 1;
	p = &s->env[bin];
	if (!p->set || cost > p->cost)
		*p = (struct fz_point){len, cost, true};
}

void fz_corpus_release(struct fz_session *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->e[i].data);
		free(s->e[i].rules);
		free(s->e[i].origin);
	}
	free(s->e);
	free(s->ntop);
	free(s->order);
	for (size_t i = 0; i < s->nworst; i++) {
		free(s->worst[i].data);
		free(s->worst[i].rules);
	}
	s->e = NULL;
	s->ntop = NULL;
	s->order = NULL;
	s->n = s->cap = s->ntop_cap = s->norder = s->nworst = 0;
}
