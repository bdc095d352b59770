/*
 * Tracepoint recordings read by `veles script` (src/perf/tpstream.c): the
 * samples' raw fields, the recorded format files and the process names,
 * put in time order.
 */
#include <string.h>

#include "fuzz.h"
#include "perf/tpstream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tp_stream s;
	size_t n = 0;

	if (tp_stream_open(fuzz_file("veles.data", data, size), &s) < 0)
		return 0;
	for (size_t i = 0; i < s.nsamples; i++)
		n += strlen(s.comms[s.samples[i].comm]) +
		     s.samples[i].raw[s.samples[i].raw_size - 1];
	for (size_t i = 0; i < s.nformats; i++)
		n += strlen(s.formats[i].system) + strlen(s.formats[i].text);
	tp_stream_free(&s);
	return (int)(n & 0);
}
