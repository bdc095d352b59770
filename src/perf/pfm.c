/*
 * PMU event names from libpfm4's tables (what ocperf and pmu-tools add).
 * libpfm4 is opened with dlopen when an event name needs it: its tables
 * carry tens of thousands of relocations, which linking it would make
 * every `veles` command pay at start-up (and in resident memory).
 */
#include <dlfcn.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "perf/pfm.h"
#include "util/error.h"

static struct {
	pfm_err_t (*initialize)(void);
	pfm_err_t (*get_os_event_encoding)(const char *, int, pfm_os_t, void *);
	int (*get_event_next)(int);
	pfm_err_t (*get_event_info)(int, pfm_os_t, pfm_event_info_t *);
	pfm_err_t (*get_pmu_info)(pfm_pmu_t, pfm_pmu_info_t *);
} pfm;

static bool pfm_load(void)
{
	void *h = dlopen("libpfm.so.4", RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return false;
	*(void **)&pfm.initialize = dlsym(h, "pfm_initialize");
	*(void **)&pfm.get_os_event_encoding = dlsym(h, "pfm_get_os_event_encoding");
	*(void **)&pfm.get_event_next = dlsym(h, "pfm_get_event_next");
	*(void **)&pfm.get_event_info = dlsym(h, "pfm_get_event_info");
	*(void **)&pfm.get_pmu_info = dlsym(h, "pfm_get_pmu_info");
	return pfm.initialize && pfm.get_os_event_encoding && pfm.get_event_next &&
	       pfm.get_event_info && pfm.get_pmu_info;
}

static bool pfm_ready(void)
{
	static int state; /* 0 not tried, 1 ready, -1 failed (or no libpfm4) */

	if (!state)
		state = pfm_load() && pfm.initialize() == PFM_SUCCESS ? 1 : -1;
	return state > 0;
}

int perf_pfm_encode(const char *name, struct pfm_code *out)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;

	if (!pfm_ready())
		return err_set(ERR_NOTFOUND, "unknown event '%s' (see veles list)", name);
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	if (pfm.get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT, &arg) !=
	    PFM_SUCCESS)
		return err_set(ERR_NOTFOUND, "unknown event '%s' (see veles list)", name);
	out->type = attr.type;
	out->config = attr.config;
	out->config1 = attr.config1;
	out->config2 = attr.config2;
	return 0;
}

static bool generic_pmu(pfm_pmu_t pmu)
{
	return pmu == PFM_PMU_PERF_EVENT || pmu == PFM_PMU_PERF_EVENT_RAW;
}

static void list_pmu(const pfm_pmu_info_t *pinfo,
		     void (*fn)(const char *name, const char *desc, void *arg), void *arg)
{
	for (int idx = pinfo->first_event; idx != -1; idx = pfm.get_event_next(idx)) {
		pfm_event_info_t info;
		char name[256];

		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm.get_event_info(idx, PFM_OS_PERF_EVENT, &info) != PFM_SUCCESS)
			continue;
		snprintf(name, sizeof(name), "%s::%s", pinfo->name, info.name);
		fn(name, info.desc ? info.desc : "", arg);
	}
}

void perf_pfm_events(void (*fn)(const char *name, const char *desc, void *arg), void *arg)
{
	pfm_pmu_t pmu;

	if (!pfm_ready())
		return;
	pfm_for_all_pmus(pmu)
	{
		pfm_pmu_info_t pinfo;

		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm.get_pmu_info(pmu, &pinfo) != PFM_SUCCESS || !pinfo.is_present ||
		    generic_pmu(pmu))
			continue;
		list_pmu(&pinfo, fn, arg);
	}
}
