/*
 * What the populate programs of the benches (log_populate,
 * history_populate) share: a git project of N commits made straight into
 * the object database, no work tree churn, with its .veles directory.
 */
#ifndef BENCH_POPULATE_H
#define BENCH_POPULATE_H

/* Prints "@prog: @what: <the error>" on stderr; returns 1. */
int populate_fail(const char *prog, const char *what);
/*
 * Makes @dir a git project of @ncommits commits (one file that changes
 * every time, a minute apart) on master, with @dir/.veles; their ids into
 * a new array *@ids (oldest first; free it). 0, or 1 after populate_fail.
 */
int populate_history(const char *prog, const char *dir, unsigned ncommits, char (**ids)[41]);

#endif
