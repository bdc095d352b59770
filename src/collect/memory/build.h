/* Turning decoded memory records into a profile in the seed's memory layout. */
#ifndef COLLECT_MEMORY_BUILD_H
#define COLLECT_MEMORY_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mem_file;
struct profile;

struct mem_opts {
	double sampling; /* seconds per snapshot */
	bool all;	 /* whole stacks for releases too (the runtime records them) */
	const char **no_source;
	size_t nno_source;
	const char **no_func;
	size_t nno_func;
	/* When not 0, the CLOCK_MONOTONIC ns snapshots count from (the whole
	 * run's start, for a profile of some of its processes); else the
	 * earliest start among the files built. */
	uint64_t start_ns;
};

/* What mem_build counted, for the collector's summary line. */
struct mem_totals {
	size_t allocs, frees, excluded;
	unsigned long long bytes;
};

/*
 * One resource per event of @files (every process of the run, or those
 * of one process), in time order, grouped in snapshots of o->sampling
 * seconds since o->start_ns or the first process started. Events whose allocation site (uid) is in
 * an excluded source file or function are left out.
 */
int mem_build(struct mem_file *files, size_t nfiles, const struct mem_opts *o, struct profile **out,
	      struct mem_totals *totals);

/* The earliest start among @files: when the run began; 0 when none. */
uint64_t mem_first_start(const struct mem_file *files, size_t nfiles);

#endif
