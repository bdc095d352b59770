/*
 * Background writing for large sequential output: a second thread does
 * the write() system calls while the caller formats the next buffer, so
 * the kernel's copying overlaps our own work (saving a million-point
 * profile takes about a quarter less time on two cores). Double buffered:
 * the caller and the thread each own one buffer at a time. (Reading ahead
 * the same way was measured too, and gained nothing: the copy out of the
 * prefetched buffer cost what the overlap saved.)
 */
#ifndef UTIL_BGIO_H
#define UTIL_BGIO_H

#include <stddef.h>

struct buf;
struct bgio;

/* A writer to @fd; NULL (and nothing started) when no thread can be had,
 * in which case the caller writes itself. */
struct bgio *bgio_writer(int fd);
/* Hands @b's contents to the thread and leaves @b empty (it gets the
 * thread's previous buffer). Waits while the thread is still busy. */
void bgio_submit(struct bgio *w, struct buf *b);
/* Waits for every write; returns 0 or the first errno. Frees @w. */
int bgio_finish(struct bgio *w);

#endif
