/*
 * The events of a memory profile (docs/collect-memory.md) in the order
 * they happened, read one at a time from the profile's columns: what the
 * views that replay the heap (show memory, heapmap) walk. Nothing is
 * copied out of the profile but the order of its rows.
 */
#ifndef VIEW_MEM_EVENTS_H
#define VIEW_MEM_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct profile;
struct column;

enum mem_ev_kind { MEM_ALLOC, MEM_FREE, MEM_REALLOC };

struct mem_event {
	size_t row;    /* the resource */
	uint32_t type; /* its resource type (the site's uid and stack) */
	enum mem_ev_kind kind;
	uint64_t pid, thread;
	uint64_t addr;	 /* the block allocated, or freed by a free */
	uint64_t old;	 /* the block a realloc released (0: none) */
	uint64_t amount; /* bytes allocated */
	int64_t snapshot;
};

/*
 * header.execs: each process image an exec ended, as the pid and the
 * position in the sequence of the image's last event. From there on the
 * old image's blocks are gone, not leaked.
 */
struct mem_image_end {
	uint64_t pid;
	size_t pos;
};

struct mem_events {
	const struct profile *p;
	size_t n;
	size_t *seq;		     /* rows by position */
	bool ordered;		     /* the profile has an "order" column */
	struct mem_image_end *execs; /* ascending positions; only when ordered */
	size_t nexecs;
	/* private */
	const struct column *amount, *address, *old, *pid, *thread, *snapshot;
	unsigned char *kind; /* per resource type */
};

/*
 * Reads the order of @p's events: by its "order" column (written by
 * collect memory), else as the rows stand, as in the seed's example; ties
 * keep the rows' order. The caller checks that @p is a memory profile.
 */
void mem_events_open(const struct profile *p, struct mem_events *e);
/* The event at position @pos (below e->n). */
void mem_events_get(const struct mem_events *e, size_t pos, struct mem_event *out);
void mem_events_close(struct mem_events *e);

/* The kind a resource subtype names ("free", "delete", "realloc"…);
 * anything else, or none, allocates. */
enum mem_ev_kind mem_kind_of(const char *subtype);

#endif
