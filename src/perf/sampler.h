/*
 * Sampling through the kernel's mmap ring buffers: one buffer per CPU for
 * a command (its children inherit the event), one per thread for -p. The
 * records are copied, unchanged, into a perf_data_writer.
 */
#ifndef PERF_SAMPLER_H
#define PERF_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "perf/datafile.h"
#include "perf/perf.h"

struct perf_ring {
	int fd;
	void *base; /* the control page, then the data pages */
	size_t data_size;
};

struct perf_sampler {
	struct perf_ring *rings;
	size_t n;
	struct perf_data_writer *out;
	uint64_t samples, lost;
	unsigned char *scratch; /* a record that wrapped around the buffer's end */
	size_t scratch_cap;
	/* Called with each record after it is written (NULL: none), for a
	 * reader that follows the recording while it is made. */
	void (*on_record)(void *arg, const void *rec, size_t len);
	void *on_record_arg;
};

/* The sample fields Veles records (and report reads). */
#define PERF_SAMPLER_TYPE                                                                          \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

/* @child for sampling every process on every CPU (-a). */
#define PERF_SAMPLER_ALL ((pid_t)-1)

/*
 * Opens @attr (sampling fields filled by the caller) with a ring buffer on
 * each CPU for the child @child (held before exec) or for every process
 * (PERF_SAMPLER_ALL), or on each of @tids.
 */
int perf_sampler_open(struct perf_sampler *s, const char *name, struct perf_event_attr *attr,
		      pid_t child, const pid_t *tids, size_t ntids);
/* Waits up to @timeout_ms for data, then copies what the buffers hold. */
int perf_sampler_poll(struct perf_sampler *s, int timeout_ms);
int perf_sampler_drain(struct perf_sampler *s);
void perf_sampler_close(struct perf_sampler *s);
/* Writes comm and mmap records for what process @pid already runs (from
 * /proc/PID/comm and /proc/PID/maps), as the kernel would have. */
int perf_sampler_synthesize(struct perf_data_writer *w, pid_t pid);
/* Writes a comm record for every thread running now and the mmap records
 * of every process (for -a). */
int perf_sampler_synthesize_all(struct perf_data_writer *w);

#endif
