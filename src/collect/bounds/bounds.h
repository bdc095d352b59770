/*
 * veles collect bounds: how many times each loop of a C program can run,
 * from its source alone (docs/collect-bounds.md).
 */
#ifndef COLLECT_BOUNDS_BOUNDS_H
#define COLLECT_BOUNDS_BOUNDS_H

#include "collect/collector.h"

extern const struct collector bounds_collector;

#endif
