/*
 * The history of a metric read from a project's store: the versions
 * reachable from a revision, each with its registered profiles.
 */
#ifndef PROJECT_HISTORY_LOAD_H
#define PROJECT_HISTORY_LOAD_H

#include <stddef.h>

struct history;
struct store;
struct vcs;

/*
 * Fills @h (zeroed) with the versions reachable from @from (NULL: HEAD),
 * at most @limit (0: all), oldest first, and the series of every location
 * matching @match in their profiles; change points found. ERR_NOTFOUND
 * when no location matches.
 */
int history_load(struct vcs *v, struct store *s, const char *from, size_t limit, const char *match,
		 struct history *h);

#endif
