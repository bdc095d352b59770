/*
 * The index of the project's store in the server's database (schema 3,
 * tables ix_*): the versions in history order with their parents and the
 * branches and tags at them, each version's profiles, the series they make
 * (configuration x location: a point per version with median, quartiles
 * and count), and the verdict of `check` of each version against its first
 * parent. The pages read the history from here instead of the store.
 *
 * Built on first use, then kept up to date incrementally: each request
 * compares a cheap stamp (the ledger's head and the refs) with the one the
 * index was made from, and only what changed is read again (the versions
 * new to the refs; the versions whose profiles differ between the old and
 * new ledger trees, and their children's verdicts).
 */
#ifndef SERVE_STORE_INDEX_H
#define SERVE_STORE_INDEX_H

#include <stddef.h>

struct serve;

/* Brings the index of s->proj up to date (s->proj_mu held). check's
 * verdicts of the versions that changed are made by a thread in the
 * background, newest first, their versions marked verdict_due until then. */
int store_index_refresh(struct serve *s);
/* Waits until every verdict due is made (s->proj_mu not held). */
void store_index_settle(struct serve *s);
/* Waits for that thread to end (s->stopping set first); frees the
 * cached histories. */
void store_index_stop(struct serve *s);

/* Where the index stands: what the last refresh did. */
struct store_index_stats {
	size_t versions_added; /* new to the refs */
	size_t versions_read;  /* whose profiles were read again */
	size_t verdicts;       /* verdicts made (by the background thread) */
};
const struct store_index_stats *store_index_last(const struct serve *s);

/* The history of a series as api_history.c made it last, kept while the
 * index's points stay as they were (s->ix_gen), with its verdicts while
 * they stay (s->ix_vgen): change points over 10,000 versions take longer
 * than the page may wait at each opening. */
#define STORE_INDEX_CACHED 8
struct store_index_cached {
	int64_t series, gen;
	int64_t vgen;	 /* the verdicts' (s->ix_vgen) in text, or -1 */
	char *text;	 /* the answer, its verdicts after body_len */
	size_t body_len; /* what depends on the points alone */
};

/* The ix_versions/ix_verdicts spelling of a change class's severity: the
 * higher, the worse (0: no verdict). */
int store_index_class_rank(const char *cls);

#endif
