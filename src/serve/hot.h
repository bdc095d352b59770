/*
 * The record views as JSON: the hot-function table (the rows of `veles
 * report`) and the flame graph's tree (stacks merged from the root, as
 * `veles report --folded` lists them).
 */
#ifndef SERVE_HOT_H
#define SERVE_HOT_H

#include <stddef.h>

#include "perf/report.h"
#include "util/buf.h"

/* {"samples":N,"total":P,"rows":[{"overhead","samples","command","object",
 * "symbol","kernel"}...]}, the @limit largest. */
void hot_json(const struct perf_report *r, size_t limit, struct buf *out);
/* {"n":"all","v":N,"c":[{"n":NAME,"v":N,"c":[...]}...]}, children by
 * count, largest first. */
void flame_json(const struct perf_folded *f, struct buf *out);
/* Both from the record file @path (the finished run's views). */
int hot_from_file(const char *path, size_t limit, struct buf *hot, struct buf *flame);

#endif
