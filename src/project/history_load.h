/*
 * The history of a metric read from a project's store: the versions
 * reachable from a revision, each with its registered profiles.
 */
#ifndef PROJECT_HISTORY_LOAD_H
#define PROJECT_HISTORY_LOAD_H

#include <stddef.h>

#include "analyze/history.h"

struct store;
struct vcs;

/*
 * Fills @h (zeroed) with the versions reachable from @from (NULL: HEAD),
 * at most @limit (0: all), oldest first, and the series of every location
 * matching @match in their profiles, each point seen by @fn (may be
 * NULL; its error stops the load); change points found. ERR_NOTFOUND when
 * no location matches.
 */
int history_load(struct vcs *v, struct store *s, const char *from, size_t limit, const char *match,
		 history_point_fn fn, void *arg, struct history *h);

#endif
