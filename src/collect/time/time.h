/* The time collector: wall, user and system time of a command, run N times. */
#ifndef COLLECT_TIME_TIME_H
#define COLLECT_TIME_TIME_H

#include "collect/collector.h"

extern const struct collector time_collector;

/* Defaults: hyperfine runs at least 10 times; one warm-up fills the caches. */
#define TIME_DEFAULT_REPEAT 10
#define TIME_DEFAULT_WARMUP 1
#define TIME_MAX_RUNS 1000000

#endif
