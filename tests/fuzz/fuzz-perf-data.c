/*
 * Record files of `veles record` (src/perf/datafile.c, session.c): the
 * header, then the kernel's records replayed as `veles report` does, every
 * sample resolved to its process, object file and function with its call
 * chain.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "perf/session.h"

/* Reading the real /proc/kallsyms costs a tenth of a second a run; a file
 * of the same format with a few functions keeps kernel samples as fast as
 * the others. */
static const char kallsyms[] = "ffffffff81000000 T _stext\n"
			       "ffffffff81000080 T entry_SYSCALL_64\n"
			       "ffffffff81001000 t do_syscall_64\n"
			       "ffffffff81002000 T __x64_sys_write\n";

static void on_sample(const struct perf_sample *s, void *arg)
{
	size_t *n = arg;

	*n += strlen(s->comm) + strlen(perf_loc_sym(&s->at)) + strlen(perf_loc_dso(&s->at));
	for (size_t i = 0; i < s->nchain; i++)
		*n += strlen(perf_loc_sym(&s->chain[i])) + strlen(perf_loc_dso(&s->chain[i]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *ksyms;
	struct perf_session *s;
	uint64_t lost;
	size_t n = 0;

	if (!ksyms) {
		ksyms = strdup(fuzz_file("kallsyms", kallsyms, sizeof(kallsyms) - 1));
		perf_kallsyms_path = ksyms;
	}
	if (perf_session_open(fuzz_file("veles.data", data, size), &s) < 0)
		return 0;
	perf_session_samples(s, on_sample, &n, &lost);
	perf_session_free(s);
	return 0;
}
