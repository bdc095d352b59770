/*
 * Which of a time profile's metrics (its subtypes real, user, sys, cpu,
 * instructions, cycles) a comparison looks at. The default is the most
 * stable one both sides have, in this order (docs/cli/check.md):
 *
 *   instructions  the same count from run to run of the same code, whatever
 *                 else the machine does; moves only when the code does
 *   cycles        not moved by frequency scaling, but by cache and memory
 *                 contention from other work
 *   cpu           the task clock: time on a CPU, exact to the ns; not the
 *                 time spent waiting for one, so a busy machine moves it
 *                 much less than real time
 *   real          wall time: everything, waiting for a CPU included
 *   user, sys     getrusage's split of the CPU time, sampled at ticks (on a
 *                 VM a 10 ms run often records user = 0)
 */
#ifndef ANALYZE_METRIC_H
#define ANALYZE_METRIC_H

#include <stdbool.h>

struct change_list;
struct profile;

/* The metrics, most stable first, NULL-terminated. */
const char *const *metric_order(void);
bool metric_known(const char *name);
/* Whether any resource of @p has subtype @metric. */
bool metric_present(const struct profile *p, const char *metric);
/* Whether @p has any of the metrics at all (a time profile). */
bool metric_any(const struct profile *p);
/* The most stable metric both have, or NULL when they share none. */
const char *metric_shared(const struct profile *a, const struct profile *b);
/* Keeps the changes at locations "UID [@metric]" and drops the other
 * metrics' (locations of no metric are kept). */
void metric_filter_changes(struct change_list *l, size_t from, const char *metric);
/* Whether location "UID [SUBTYPE]" is at @metric. */
bool metric_location_is(const char *location, const char *metric);

#endif
