/*
 * Counters through perf_event_open(2), without the perf tool: naming events
 * (generic hardware and software events, hardware cache events, kernel
 * tracepoints, the PMU's own events from libpfm4's tables, raw rNNN codes),
 * listing them, and opening them with errors that say what to change.
 */
#ifndef PERF_PERF_H
#define PERF_PERF_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum perf_kind { PK_HARDWARE, PK_SOFTWARE, PK_CACHE, PK_TRACEPOINT, PK_PMU, PK_RAW };

/* One listed event. */
struct perf_event_info {
	char *name;
	char *desc;
	enum perf_kind kind;
	bool supported; /* the kernel accepted it in a probe */
};

/* "hardware", "software", ... as `veles list` prints them. */
const char *perf_kind_name(enum perf_kind k);

/*
 * Resolves @name into @attr (zeroed first; size set): a generic event
 * (cycles, page-faults, ...), a cache event (L1-dcache-load-misses), a
 * tracepoint (sched:sched_switch), raw rNNN (hex), or a libpfm4 event name
 * (with or without its PMU::), each with perf's :u/:k/:h/:p... modifiers.
 * ERR_NOTFOUND with a message naming the event when it is none of these;
 * ERR_INVALID when it may be a tracepoint but tracefs cannot be read.
 */
int perf_event_parse(const char *name, struct perf_event_attr *attr);

/*
 * Every event this machine knows whose name or description contains
 * @pattern (case-insensitive; NULL for all), in the order above, each
 * probed with perf_event_open. Free with perf_event_list_free.
 */
int perf_event_list(const char *pattern, struct perf_event_info **out, size_t *n);
void perf_event_list_free(struct perf_event_info *v, size_t n);

/* ---- the generic tables (events.c) ---- */
struct perf_generic {
	const char *name;
	const char *alias; /* or NULL */
	uint32_t type;
	uint64_t config;
	const char *desc;
};
const struct perf_generic *perf_generic_table(size_t *n);
/* Cache events: name into @config; false when @name is not one. */
bool perf_cache_event(const char *name, uint64_t *config);
/* The i-th cache event's name into @out (64 bytes); false past the end. */
bool perf_cache_event_name(size_t i, char *out, size_t len);

/* ---- tracefs (tracefs.c) ---- */
/* The tracefs mount (/sys/kernel/tracing or the debugfs one), or NULL. */
const char *perf_tracefs(void);
/* The id of tracepoint "SUBSYS:NAME"; ERR_NOTFOUND when there is none,
 * ERR_INVALID (saying why) when tracefs is not mounted or not readable. */
int perf_tracepoint_id(const char *name, uint64_t *id);
/* The text of tracepoint "SUBSYS:NAME"'s format file into *@text (caller
 * frees); ERR_NOTFOUND when it cannot be read. */
int perf_tracepoint_format(const char *name, char **text);
/* Calls @fn for each tracepoint with "SUBSYS:NAME" and a description built
 * from its format file (its fields). */
int perf_tracepoints(void (*fn)(const char *name, const char *desc, void *arg), void *arg);

/* libpfm4 is in pfm.h: its headers bring their own perf_event_attr. */

/* ---- opening (sys.c) ---- */
int perf_open_raw(struct perf_event_attr *attr, pid_t pid, int cpu, int group, unsigned long fl);
/* The current /proc/sys/kernel/perf_event_paranoid value (2 if unreadable). */
int perf_paranoid(void);
/* Fits @attr to our privileges: without root and with paranoid >= 2 only
 * user space may be counted, as perf does (":u"). */
void perf_attr_fit(struct perf_event_attr *attr);
/* 0 when the kernel accepts @attr for this process; else -errno. */
int perf_probe(const struct perf_event_attr *attr);
/*
 * Opens @attr for @pid on @cpu; on failure a negative ERR_* with a message
 * naming @name and, for permission errors, perf_event_paranoid and root.
 * -ENOENT / -EOPNOTSUPP style rejections return ERR_INVALID with
 * *@unsupported set, so callers can print "<not supported>".
 */
int perf_open(const char *name, struct perf_event_attr *attr, pid_t pid, int cpu,
	      bool *unsupported);

#endif
