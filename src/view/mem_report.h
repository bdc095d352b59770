/*
 * The memory view (veles show PROFILE memory, docs/cli/show.md), what a
 * heaptrack user reads first: peak heap and when, totals, temporary
 * allocations, leaks with their stacks, and per allocation site its calls,
 * bytes, leaks and share of the peak. The CLI prints it as text or JSON.
 */
#ifndef VIEW_MEM_REPORT_H
#define VIEW_MEM_REPORT_H

#include <stddef.h>

#include "util/strmap.h"
#include "view/mem_events.h"

struct profile;

/* An allocation site (a uid) and what it did. */
struct mem_site {
	char *uid;
	unsigned long long count, bytes, temporary, leaked, leaked_blocks, peak;
};

/* Blocks never freed, gathered by their stack: a site (uid) is reached
 * from many stacks, and the one that leaked is the one to show. */
struct mem_leak {
	size_t site, type; /* type: the resource type, whose trace is the stack */
	unsigned long long leaked, blocks;
};

struct mem_totals {
	unsigned long long allocs, frees, bytes, temporary, leaked, leaked_blocks;
	unsigned long long peak;
	size_t peak_row; /* SIZE_MAX: no event at all */
	size_t peak_pos; /* its place in the sequence */
};

struct mem_report {
	const struct profile *p;
	struct mem_totals t;
	struct mem_site *sites;
	size_t nsites;
	struct mem_leak *leaks;
	size_t nleaks;
	/* private */
	struct mem_events ev;
	size_t *site; /* per type, SIZE_MAX until seen */
	size_t sites_cap, leaks_cap;
	struct strmap uids;
	struct strmap stacks; /* a leak's trace -> its index in leaks */
};

/* Replays the events of @p, a memory profile (the caller checks its type). */
void mem_report_build(const struct profile *p, struct mem_report *r);
/* The trace of resource type @type as its JSON text; "" where none. */
const char *mem_report_trace(const struct mem_report *r, size_t type);
void mem_report_release(struct mem_report *r);

#endif
