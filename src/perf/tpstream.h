/*
 * A tracepoint recording read back for veles script: its tracepoints'
 * format files and its samples in time order, each with the name its
 * process had at that time (from the comm and fork records).
 */
#ifndef PERF_TPSTREAM_H
#define PERF_TPSTREAM_H

#include <stddef.h>
#include <stdint.h>

#include "perf/datafile.h"

struct tp_sample {
	uint64_t time;
	uint32_t cpu, pid, tid;
	uint32_t comm; /* index into tp_stream.comms */
	uint32_t raw_size;
	const unsigned char *raw; /* the tracepoint's record: common_type first */
};

struct tp_format {
	char *system; /* "raw_syscalls" */
	char *text;   /* the format file */
};

struct tp_stream {
	struct perf_data d;
	struct tp_format *formats;
	size_t nformats;
	struct tp_sample *samples;
	size_t nsamples;
	char **comms; /* distinct process names */
	size_t ncomms;
	uint64_t lost; /* samples the kernel dropped while recording */
};

/*
 * Loads the recording at @path. The formats are the recording's own
 * (PERF_RECORD_VELES_TPFORMAT), else this machine's tracefs. ERR_PARSE for
 * a file that is not a recording, ERR_INVALID for one without tracepoint
 * samples (its message says how to record one).
 */
int tp_stream_open(const char *path, struct tp_stream *s);
void tp_stream_free(struct tp_stream *s);

#endif
