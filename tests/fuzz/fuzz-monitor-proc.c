/*
 * The /proc parsers of `veles monitor` (src/monitor/reader.c and the
 * proc_*.c it calls): the text of each file, and of /proc/PID/stat, read
 * from a live system or a directory of fixtures given as the root.
 */
#include <string.h>

#include "fuzz.h"
#include "monitor/monitor.h"
#include "monitor/procs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = fuzz_text(data, size);

	/* A table of its own for each: a table's rows are sized by the
	 * column count of the file it holds. */
	for (int i = 0; i < MT_COUNT; i++) {
		struct mon_table t = {0};

		if (mon_tabdefs[i].parse)
			mon_tabdefs[i].parse(text, &t);
		else if (i == MT_PROC)
			mon_parse_pidstat(text, 1000, &t);
		mon_table_release(&t);
	}
	return 0;
}
