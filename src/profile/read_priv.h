/* Shared by profile_read.c and read_res.c. */
#ifndef PROFILE_READ_PRIV_H
#define PROFILE_READ_PRIV_H

#include <stdbool.h>

#include "profile/json_sax.h"
#include "profile/profile.h"
#include "util/buf.h"

/* Recently seen resource signatures and the types they resolved to, so a
 * million resources of a few types skip profile_type_add()'s lookup. */
struct sigcache {
	struct buf sig;	   /* scratch for the signature being looked up */
	struct buf sigs;   /* cached signatures, back to back */
	size_t sig_off[9]; /* entry k is sigs[sig_off[k]..sig_off[k+1]) */
	uint32_t sig_type[8];
	size_t nsigs;
};

struct reader {
	struct jsax j;
	struct profile *p;
	bool has_header, has_res;
	struct buf tmp;
	/* One resource dict of the list layouts, split as it is read. */
	struct attr *attrs, *vals;
	size_t nattrs, attrs_cap, nvals, vals_cap;
	struct buf strs; /* their string values; attr.i holds the offset */
	/* The current snapshot's "time", given to each of its resources. */
	struct attr snap_time;
	bool has_snap_time;
	struct buf snap_time_str;
	/* Caches for the list layouts, where a million resources repeat a
	 * handful of keys and attribute sets (read_res.c). */
	const char *coll[16]; /* the collectable key names, interned */
	const char *keys[16]; /* the interned key last seen at each position */
	size_t key_len[16];
	struct sigcache sc;   /* signatures of parsed attributes (jsax_next path) */
	struct sigcache flat; /* signatures of raw text (jsax_flat_next path) */
	/* The keys of the last flat resource, by position. */
	struct flat_key {
		const char *name; /* interned */
		size_t len;
		bool coll;  /* a collectable key */
		size_t col; /* its res column, when res.cols[col].name is @name */
	} fkeys[16];

	/* A list read on two threads (read_res.c); the second half's
	 * reader has no_split. */
	struct split *split;
	const char *split_at; /* where the second half starts */
	bool no_split;
};

void reader_release(struct reader *r);

/* Each is called after the container's opening event. */
int read_typed_resources(struct reader *r);
int read_type_map(struct reader *r);
int read_global(struct reader *r);
int read_snapshots(struct reader *r);
/* read_split.c: starts reading the rest of the list of resources ('[')
 * or of typed resources ('{') just begun on a second thread, when it is long and in memory;
 * split_finish() waits for it and, when this reader is @at_boundary where the second half started,
 * takes its resources and moves past them. */
void split_start(struct reader *r, char kind);
void split_finish(struct reader *r, bool at_boundary);
/* A list of resource dicts; @snapshot >= 0 adds "snapshot" and "time". */
int read_res_list(struct reader *r, int snapshot);

#endif
