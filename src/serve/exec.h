/*
 * The run queue's worker: one thread that takes the first queued run,
 * runs it (exec_stat.c, exec_record.c), files its end, and takes the next,
 * so runs never overlap (the seed's "runs queueing"). Cancelling a queued
 * run only changes its state; cancelling the running one stops it.
 */
#ifndef SERVE_EXEC_H
#define SERVE_EXEC_H

#include <stdbool.h>

struct serve;

int exec_start(struct serve *s);
/* A run was queued: look again. */
void exec_wake(struct serve *s);
/* Stops run @id when it is the running one: true then. */
bool exec_cancel(struct serve *s, const char *id);
/* The running run's id into @id; false when none runs. */
bool exec_current(struct serve *s, char id[37]);
/* Whether no process of this user on this machine runs a run now (the
 * machine's run lock is free): runs this machine's runner holds in the
 * database are then left over from one that died. */
bool exec_machine_idle(void);
/* Stops the running run and the worker (server shutdown). */
void exec_stop(struct serve *s);

#endif
