/*
 * The clock page of `collect memory`: a shared file in which a thread of
 * the driver stores CLOCK_MONOTONIC every 2 ms while the command
 * runs, so that the runtime reads the time of an event with one load
 * (docs/memory-format.md, "Time").
 */
#ifndef COLLECT_MEMORY_TICKER_H
#define COLLECT_MEMORY_TICKER_H

struct ticker;

/* Makes @path and starts ticking it; ERR_IO when it cannot. */
int ticker_start(const char *path, struct ticker **out);
/* Stops the thread and unmaps the page (the file stays); NULL is fine. */
void ticker_stop(struct ticker *t);

#endif
