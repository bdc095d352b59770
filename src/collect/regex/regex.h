/* The regex collector: measurements read from a command's own output. */
#ifndef COLLECT_REGEX_REGEX_H
#define COLLECT_REGEX_REGEX_H

#include "collect/collector.h"

extern const struct collector regex_collector;

/* At most this many runs, warm-ups or measured. */
#define REGEX_MAX_RUNS 1000000

#endif
