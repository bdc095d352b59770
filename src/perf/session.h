/*
 * Reading a recording back: the process maps (from mmap, comm, fork
 * records) at each point, and every sample resolved to its command, object
 * file and function, with its call chain when recorded.
 */
#ifndef PERF_SESSION_H
#define PERF_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perf/datafile.h"
#include "perf/symbols.h"

/* Where one address landed. */
struct perf_loc {
	uint64_t ip;
	const struct perf_dso *dso; /* NULL: no map covered it ("[unknown]") */
	const struct perf_sym *sym; /* NULL: no symbol */
	bool kernel;
};

struct perf_sample {
	uint32_t pid, tid, cpu;
	uint64_t time, period;
	const char *comm;
	struct perf_loc at;
	struct perf_loc *chain; /* callers, innermost first (the sample's own ip excluded) */
	size_t nchain;
};

struct perf_session;

int perf_session_open(const char *path, struct perf_session **out);
const struct perf_data *perf_session_data(const struct perf_session *s);
/* Calls @fn for every sample in time order (side-band records replayed
 * among them); lost samples are counted. ERR_PARSE "PATH: damaged sample
 * at offset N" for a sample whose fields do not fit its record. */
int perf_session_samples(struct perf_session *s,
			 void (*fn)(const struct perf_sample *smp, void *arg), void *arg,
			 uint64_t *lost);
void perf_session_free(struct perf_session *s);

/* "[unknown]" or the function's name, "[.]"/"[k]" style kept to callers. */
const char *perf_loc_sym(const struct perf_loc *l);
const char *perf_loc_dso(const struct perf_loc *l);

#endif
