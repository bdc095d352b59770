/*
 * header.execs of a memory profile (docs/collect-memory.md): for each
 * process image an exec ended, its pid and the order of its last event.
 * The old image's blocks are gone from then on, so the views that replay
 * the heap (show memory, heapmap) end them there.
 */
#ifndef CLI_MEM_EXECS_H
#define CLI_MEM_EXECS_H

#include <stddef.h>
#include <stdint.h>

struct profile;

struct mem_exec {
	uint64_t pid, order;
};

/* The pairs in the header's sequence (none without the key); the caller
 * frees *out. */
size_t mem_execs(const struct profile *p, struct mem_exec **out);

#endif
