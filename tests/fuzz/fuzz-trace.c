/*
 * The files the trace runtime (libveles-trace.so) writes, read by
 * src/collect/trace/trace-read.c: a thread's binary call records (.vtr),
 * a process's text description (.meta) and a thread's sums of the
 * aggregating mode (.agg). Every input is given to all three readers.
 */
#include <stdlib.h>
#include <string.h>

#include "collect/trace/trace-read.h"
#include "fuzz.h"
#include "util/common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace_data d = {0};
	const char *text = fuzz_text(data, size);

	trace_read_records(data, size, "1.1.vtr", &d);
	d.procs = xcalloc(1, sizeof(*d.procs));
	d.nprocs = 1;
	trace_read_meta(text, "1.meta", &d.procs[0]);
	trace_read_aggregate(text, "1.1.agg", 1, 1, &d);
	trace_data_free(&d);
	return 0;
}
