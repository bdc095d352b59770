/* The monitor collector: system load sampled while a command runs. */
#ifndef COLLECT_MONITOR_MONITOR_H
#define COLLECT_MONITOR_MONITOR_H

#include "collect/collector.h"

extern const struct collector monitor_collector;

#endif
