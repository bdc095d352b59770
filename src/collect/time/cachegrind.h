/*
 * collect time --metric instructions where no PMU counts them (as on most
 * CI machines and VMs): each run goes under valgrind's cachegrind without
 * its cache simulation, whose "I refs" is the exact count of instructions
 * executed, the same from run to run of a deterministic program (the idea
 * CodSpeed builds its CI gate on). Child processes are followed and their
 * counts added, as the task-clock counter adds them.
 */
#ifndef COLLECT_TIME_CACHEGRIND_H
#define COLLECT_TIME_CACHEGRIND_H

#include "util/tmpdir.h"

struct cachegrind {
	struct tmpdir dir; /* the runs' log files, one per process */
	char **argv;	   /* valgrind ... -- COMMAND ARGS, NULL-terminated */
};

/* Prepares to run @cmd (NULL-terminated) under cachegrind; ERR_CHILD
 * naming the Debian package when valgrind is not installed. */
int cachegrind_prepare(struct cachegrind *cg, char *const *cmd);
/* After a run: its instruction count (all processes), logs removed;
 * ERR_CHILD when valgrind wrote none. */
int cachegrind_count(struct cachegrind *cg, double *out);
void cachegrind_release(struct cachegrind *cg);

#endif
