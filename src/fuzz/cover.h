/*
 * Edge counts from a program built with `veles cflags fuzz`: the shared
 * map its runtime fills (runtime/fuzzcov-format.h), and what the fuzzer
 * has seen in it so far. A run is news when it reaches an edge never
 * reached, puts an edge's count in a power-of-two class never seen for it
 * (AFL's hit-count buckets), or passes an edge more often than any input
 * before (PerfFuzz's per-edge maximum, which drives inputs towards the
 * paths a program repeats most).
 */
#ifndef FUZZ_COVER_H
#define FUZZ_COVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fuzzcov_map;

struct fz_cover {
	int fd; /* the memfd; -1 when closed */
	struct fuzzcov_map *map;
	bool attached;	  /* a runtime filled the map in the last run */
	uint32_t nedges;  /* the most edges any run numbered */
	uint32_t *maxc;	  /* per edge: the highest count seen */
	uint32_t *top;	  /* per edge: the corpus entry holding maxc, or UINT32_MAX */
	uint64_t *seen;	  /* per edge: bit k set when a count of class k was seen */
	uint32_t *basec;  /* per edge: the highest count of the seeds */
	size_t edges_hit; /* edges any kept input reached */
};

/* What one run brought that the kept inputs did not. */
struct fz_cover_news {
	size_t new_edges;   /* edges never reached before */
	size_t new_classes; /* edges with a count of a class not seen before */
	size_t new_max;	    /* edges passed more often than ever */
	uint64_t hits;	    /* all edges' counts summed: a cost (--metric hits) */
};

/* Makes the map (a memfd the program inherits); ERR_IO when it cannot. */
int fz_cover_open(struct fz_cover *c);
void fz_cover_close(struct fz_cover *c);
/* Before a run: zeroes the counts and the runtime's mark. */
void fz_cover_reset(struct fz_cover *c);
/* After a run: whether a runtime attached, and what is new (read only). */
void fz_cover_check(struct fz_cover *c, struct fz_cover_news *n);
/*
 * Records the last run as kept corpus entry @id: its classes as seen, and
 * @id as the holder of every edge whose count passes the maximum. @ntop
 * (indexed by entry, at least @id + 1 long) counts the edges each entry
 * holds; the entry that lost an edge gets one less.
 */
void fz_cover_commit(struct fz_cover *c, uint32_t id, uint32_t *ntop);

/* Takes the maxima so far as the seeds' (fz_cover_growth's base). */
void fz_cover_mark_base(struct fz_cover *c);
/* How many times edge @e's highest count exceeds the seeds' (its count
 * when the seeds never passed it). */
double fz_cover_growth(const struct fz_cover *c, uint32_t e);
/* Entry ids changed: @map[old] is the new id (FZ_NO_ENTRY: gone). */
void fz_cover_remap(struct fz_cover *c, const uint32_t *map, size_t nold);

/* The class of an edge count: 0 for none, else floor(log2(count)) + 1. */
static inline unsigned fz_count_class(uint32_t count)
{
	return count ? 32u - (unsigned)__builtin_clz(count) : 0;
}

#endif
