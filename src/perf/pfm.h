/*
 * The PMU's own event tables, through libpfm4. Kept apart from perf.h:
 * libpfm4's headers define their own struct perf_event_attr, so pfm.c may
 * not see <linux/perf_event.h> and passes the encoding field by field.
 */
#ifndef PERF_PFM_H
#define PERF_PFM_H

#include <stdint.h>

struct pfm_code {
	uint32_t type;
	uint64_t config, config1, config2;
};

/* Encodes a PMU event name ("inst_retired.any", "pmu::event:umask");
 * ERR_NOTFOUND when libpfm4 does not know it. */
int perf_pfm_encode(const char *name, struct pfm_code *out);
/* Calls @fn for each event of the PMUs present on this machine (the
 * generic perf PMUs, which events.c already lists, left out). */
void perf_pfm_events(void (*fn)(const char *name, const char *desc, void *arg), void *arg);

#endif
