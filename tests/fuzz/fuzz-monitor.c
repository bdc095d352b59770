/*
 * Monitor recordings (src/monitor/playback.c): `veles monitor -p FILE`
 * whole, from the decompression and the records to the rates and the
 * views the recording's header chooses, in each output format.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "monitor/record.h"
#include "monitor/run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	const char *path = fuzz_file("recording", data, size);
	struct mon_run_opts o = {.count = -1, .sep = ' ', .playback = path, .proc_root = "/proc"};

	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	o.out = null;
	o.format = (enum mon_format)(size % 3);
	mon_file_is_recording(path);
	mon_run(&o);
	return 0;
}
