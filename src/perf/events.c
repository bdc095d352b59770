/* The generic hardware, software and cache events the kernel names itself. */
#include <stdio.h>
#include <string.h>

#include "perf/perf.h"
#include "util/common.h"

#define HW(n, a, c, d)                                                                             \
	{                                                                                          \
		n, a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c, d                                     \
	}
#define SW(n, a, c, d)                                                                             \
	{                                                                                          \
		n, a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##c, d                                     \
	}

static const struct perf_generic generic[] = {
	HW("cpu-cycles", "cycles", CPU_CYCLES, "CPU cycles"),
	HW("instructions", NULL, INSTRUCTIONS, "retired instructions"),
	HW("cache-references", NULL, CACHE_REFERENCES, "last-level cache accesses"),
	HW("cache-misses", NULL, CACHE_MISSES, "last-level cache misses"),
	HW("branch-instructions", "branches", BRANCH_INSTRUCTIONS, "retired branch instructions"),
	HW("branch-misses", NULL, BRANCH_MISSES, "mispredicted branches"),
	HW("bus-cycles", NULL, BUS_CYCLES, "bus cycles"),
	HW("stalled-cycles-frontend", "idle-cycles-frontend", STALLED_CYCLES_FRONTEND,
	   "cycles the front end issued nothing"),
	HW("stalled-cycles-backend", "idle-cycles-backend", STALLED_CYCLES_BACKEND,
	   "cycles the back end retired nothing"),
	HW("ref-cycles", NULL, REF_CPU_CYCLES, "reference cycles, unscaled by frequency"),
	SW("cpu-clock", NULL, CPU_CLOCK, "CPU clock, a high-resolution per-CPU timer (ns)"),
	SW("task-clock", NULL, TASK_CLOCK, "time the task ran on a CPU (ns)"),
	SW("page-faults", "faults", PAGE_FAULTS, "page faults, minor and major"),
	SW("context-switches", "cs", CONTEXT_SWITCHES, "context switches"),
	SW("cpu-migrations", "migrations", CPU_MIGRATIONS, "moves of the task to another CPU"),
	SW("minor-faults", NULL, PAGE_FAULTS_MIN, "page faults served without I/O"),
	SW("major-faults", NULL, PAGE_FAULTS_MAJ, "page faults that needed I/O"),
	SW("alignment-faults", NULL, ALIGNMENT_FAULTS, "unaligned accesses fixed up"),
	SW("emulation-faults", NULL, EMULATION_FAULTS, "instructions emulated by the kernel"),
	SW("dummy", NULL, DUMMY, "counts nothing; carries side-band records"),
};

const struct perf_generic *perf_generic_table(size_t *n)
{
	*n = ARRAY_SIZE(generic);
	return generic;
}

/* The cache events perf lists: cache x operation x result, the useful ones. */
static const struct {
	const char *name;
	unsigned id;
	bool read_only; /* only loads make sense (instruction caches, branch unit) */
} caches[] = {
	{"L1-dcache", PERF_COUNT_HW_CACHE_L1D, false}, {"L1-icache", PERF_COUNT_HW_CACHE_L1I, true},
	{"LLC", PERF_COUNT_HW_CACHE_LL, false},	       {"dTLB", PERF_COUNT_HW_CACHE_DTLB, false},
	{"iTLB", PERF_COUNT_HW_CACHE_ITLB, true},      {"branch", PERF_COUNT_HW_CACHE_BPU, true},
	{"node", PERF_COUNT_HW_CACHE_NODE, false},
};
static const char *const ops[] = {"load", "store"};
enum { NCACHE_VARIANTS = 4 }; /* {load, store} x {accesses, misses} */

bool perf_cache_event_name(size_t i, char *out, size_t len)
{
	size_t c = i / NCACHE_VARIANTS, v = i % NCACHE_VARIANTS;

	if (c >= ARRAY_SIZE(caches))
		return false;
	if (caches[c].read_only && v >= 2) {
		out[0] = '\0'; /* a hole: no stores for this cache */
		return true;
	}
	snprintf(out, len, "%s-%s%s", caches[c].name, ops[v / 2], v % 2 ? "-misses" : "s");
	return true;
}

bool perf_cache_event(const char *name, uint64_t *config)
{
	char buf[64];

	for (size_t i = 0; perf_cache_event_name(i, buf, sizeof(buf)); i++) {
		size_t c = i / NCACHE_VARIANTS, v = i % NCACHE_VARIANTS;
		uint64_t op = v / 2 ? PERF_COUNT_HW_CACHE_OP_WRITE : PERF_COUNT_HW_CACHE_OP_READ;
		uint64_t res =
			v % 2 ? PERF_COUNT_HW_CACHE_RESULT_MISS : PERF_COUNT_HW_CACHE_RESULT_ACCESS;

		if (buf[0] && strcmp(buf, name) == 0) {
			*config = caches[c].id | op << 8 | res << 16;
			return true;
		}
	}
	return false;
}
