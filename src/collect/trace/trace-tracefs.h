/*
 * Uprobe events defined through tracefs (uprobe_events), for the probes
 * that must read the traced process's memory at the hit: a --size member
 * reached through a pointer (FUNC:ARG->member) may be on the heap, where
 * the user stack a perf sample copies does not reach. The kernel fetches
 * the value (`+OFFSET(%reg)`) and the sample carries it as raw data.
 */
#ifndef COLLECT_TRACE_TRACEFS_H
#define COLLECT_TRACE_TRACEFS_H

#include "collect/trace/trace-attach.h"

struct tracefs_event {
	char *group_event; /* "GROUP/EVENT", to remove it */
	int id;		   /* the perf tracepoint id */
	int field_off;	   /* where the value is in a sample's raw data */
};

/* Defines the entry probe @sp with its size member as a fetch argument. */
int tracefs_uprobe_add(const struct probe_spec *sp, struct tracefs_event *ev);
/* Removes it (its perf events closed first); NULL-safe on a failed add. */
void tracefs_uprobe_remove(struct tracefs_event *ev);

#endif
