/*
 * Event names (src/perf/parse.c): `-e NAME[:MODS]` of record and stat, a
 * recording's own event list, the generic names, raw codes, tracepoints
 * and libpfm4's PMU events.
 */
#include <linux/perf_event.h>

#include "fuzz.h"
#include "perf/perf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_attr attr;

	perf_event_parse(fuzz_text(data, size), &attr);
	return 0;
}
