/*
 * The edge-count map libveles-fuzzcov.so fills and `veles fuzz` reads
 * (docs/cli/fuzz.md). Shared by the runtime and the fuzzer, so it holds
 * constants and one struct only: no code, no dependencies.
 *
 * The fuzzer makes the map (a memfd), hands it to the program as file
 * descriptor FUZZCOV_FD with FUZZCOV_ENV set, and clears the counts before
 * each run. The runtime numbers the program's trace-pc-guard guards 1..N
 * (0 means "not counted"), writes the magic and N, and adds one to
 * counts[guard] each time control passes the edge.
 */
#ifndef RUNTIME_FUZZCOV_FORMAT_H
#define RUNTIME_FUZZCOV_FORMAT_H

#include <stdint.h>

#define FUZZCOV_MAGIC 0x5646435au /* "ZCFV" read as little-endian bytes */
#define FUZZCOV_VERSION 1
#define FUZZCOV_ENV "VELES_FUZZ_MAP_FD"
/* Above the descriptors programs use, below the usual 1024 soft limit. */
#define FUZZCOV_FD 198
/* Edges counted apart; guards past the last share counters (modulo). */
#define FUZZCOV_EDGES (1u << 16)

struct fuzzcov_map {
	uint32_t magic;	  /* FUZZCOV_MAGIC once a runtime attached */
	uint32_t version; /* FUZZCOV_VERSION */
	uint32_t nedges;  /* the highest guard number handed out */
	uint32_t pad;
	/* counts[0] is never incremented; 32 bits, so a loop's count stays
	 * exact (PerfFuzz keeps the input that maximises each edge). */
	uint32_t counts[FUZZCOV_EDGES];
};

#endif
