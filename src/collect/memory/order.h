/* The events of every process of a run in one sequence a replay can trust. */
#ifndef COLLECT_MEMORY_ORDER_H
#define COLLECT_MEMORY_ORDER_H

#include <stddef.h>
#include <stdint.h>

struct mem_file;

/* Event @idx of files[@file]. */
struct mem_ref {
	uint64_t ns;
	uint32_t file;
	uint32_t idx;
};

/*
 * Every event of @files in time order, each thread's own order kept. The
 * clock the runtime reads ticks every 2 ms, so within one tick the threads'
 * events are ordered by their addresses instead: a release waits for the
 * allocation that returned its address, and an allocation for the release
 * of the block that held its address, when another thread does either.
 * Sets *@n to the count.
 */
struct mem_ref *mem_order(const struct mem_file *files, size_t nfiles, size_t *n);

#endif
