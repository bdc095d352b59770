/*
 * The version profiles collected now are filed under (their origin): HEAD,
 * read from git's own files when they tell, so that a collection does not
 * load libgit2 (its start-up would count against every run it measures).
 */
#ifndef PROJECT_ORIGIN_H
#define PROJECT_ORIGIN_H

#include <stdbool.h>

struct project;

/* HEAD's full id into @head: 1, 0 when there is no version yet (@head
 * ""), or an error when the version context cannot be opened. */
int project_head_quick(struct project *p, char head[41]);
/*
 * project_head_quick(), and what the user should know through p->warn:
 * that there is no version yet (the profile(s), @many of them, will have
 * no origin), or that uncommitted changes may skew them (unless the
 * setting collect.warn_dirty is false).
 */
int project_origin(struct project *p, bool many, char head[41]);

#endif
