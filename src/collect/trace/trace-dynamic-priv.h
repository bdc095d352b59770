/*
 * What the dynamic mode's two halves share: running the command under its
 * probes and reading their rings (trace-dynamic.c), and pairing the
 * samples into calls (trace-pair.c). Not for use outside
 * src/collect/trace/.
 */
#ifndef COLLECT_TRACE_DYNAMIC_PRIV_H
#define COLLECT_TRACE_DYNAMIC_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collect/trace/trace-attach.h"
#include "collect/trace/trace-tracefs.h"

struct trace_data;

/* A probe's id and where it is in struct dyn's probes. */
struct probe_id {
	uint64_t id;
	size_t index;
};

/* One probe on one CPU. */
struct probe {
	int fd;
	uint64_t id;
	const struct probe_spec *spec;
	uint64_t regs_mask; /* sampled user registers */
	bool stack;	    /* and the user stack */
	int raw_off;	    /* a tracefs event's: where its size is in the raw data; else -1 */
};

struct sample {
	uint64_t id, time;
	uint32_t pid, tid;
	bool has_size, has_sp;
	int64_t size;
	uint64_t sp; /* a function's: at entry it points at the return address */
};

/* A PERF_RECORD_FORK: process @pid made by @ppid (a thread when equal). */
struct fork_rec {
	uint32_t pid, ppid;
	uint64_t time;
};

struct dyn {
	struct probe *probes;
	size_t nprobes;
	struct probe_id *by_id; /* the probes by id, for the samples' lookups */
	int *leaders;		/* per CPU: the probe whose ring the others write to */
	void **rings;
	long ncpus;
	size_t page;
	struct sample *samples;
	size_t nsamples, cap;
	uint64_t lost;
	uint64_t unreturned; /* calls whose return the kernel did not probe */
	uint64_t bytes;	     /* of samples read from the rings */
	struct fork_rec *forks;
	size_t nforks;
	pid_t child;
	struct tracefs_event *events; /* defined for sizes through a pointer */
	size_t nevents;
};

/* Sorts the probes by id, for dyn_probe_of(). */
void dyn_index_probes(struct dyn *dy);
/* The probe a sample's @id names, or NULL. */
const struct probe *dyn_probe_of(const struct dyn *dy, uint64_t id);
/* The command's samples (@path is its executable) paired into @d's calls,
 * thread by thread; calls deeper than the kernel probed are counted in
 * dy->unreturned. */
void dyn_pair_samples(struct dyn *dy, const char *path, struct trace_data *d);

#endif
