/* Inside the profile store: the ledger and its tree, shared by the parts. */
#ifndef STORE_STORE_INTERNAL_H
#define STORE_STORE_INTERNAL_H

#include "vcs/git_lazy.h"

#include "store/store.h"

#define STORE_LEDGER_REF "refs/veles/ledger"

struct store {
	struct vcs *vcs;
	git_repository *repo;
};

/* The ledger head; 1 when there is no ledger yet. */
int store_ledger_head(struct store *s, git_oid *out);
/* The root tree of ledger commit @commit. */
int store_commit_tree(struct store *s, const git_oid *commit, git_tree **out);
/* "versions/ab/cdef..." for a 40-hex version id. */
void store_version_path(const char *version, char path[52]);
/* The tree of @version inside @root; *out NULL when it has no profiles. */
int store_version_tree(struct store *s, git_tree *root, const char *version, git_tree **out);

/* The profiles of @version in ledger tree @root (owned copies). */
int store_list_in(struct store *s, git_tree *root, const char *version, struct store_entry **out,
		  size_t *n);

/*
 * Moves the ledger from @old (NULL: no ledger yet) to a new commit of
 * @tree with parents @old and @other (may be NULL) by compare-and-swap.
 * ERR_CONFLICT when another process moved it first (the caller redoes its
 * work on the new head); a stale lock is cleared on the way. @sig: the
 * commit's author (NULL: now), so that the same call writes the same
 * commit again.
 */
int store_ledger_commit(struct store *s, const git_oid *old, const git_oid *other,
			const git_oid *tree, const char *msg, const git_signature *sig,
			git_oid *out);
/* The commit store_ledger_commit() would write, without moving the ref. */
int store_ledger_object(struct store *s, const git_oid *old, const git_oid *other,
			const git_oid *tree, const char *msg, const git_signature *sig,
			git_oid *out);

/* store_lock.c: a writer's whole update, from its first object on, runs
 * between these; the first writer when none other runs removes the
 * temporaries killed writers left. store_writer_enter() may return -1
 * (a read-only repository): store_writer_leave() takes it. */
int store_writer_enter(struct store *s);
void store_writer_leave(int fd);
/* store_lock.c: the ref itself moved from @old (NULL: create) to @new_id,
 * under the ledger's owner lock; ERR_CONFLICT to go again. */
int store_ref_move(struct store *s, const git_oid *old, const git_oid *new_id, const char *msg);
/* Which git gc runs now (its gc.pid), "" when none. */
#define STORE_GC_MARK 128
void store_gc_mark(struct store *s, char mark[STORE_GC_MARK]);
/* Whether the gc @mark names may prune objects written moments ago (its
 * --prune, else gc.pruneExpire: `now`, `all`, minutes), or cannot tell. */
bool store_gc_prunes_now(struct store *s, const char *mark);
/* Waits, up to @ms, until the gc @mark named has ended. */
void store_gc_wait(struct store *s, const char *mark, long long ms);
/* *@all: every object of @ids is in the object database on disk. */
int store_objects_present(struct store *s, const git_oid *ids, size_t n, bool *all);
/* Each object of @ids missing on disk that this process can still read,
 * written there; 1 when some could not be read (to be made again). */
int store_objects_restore(struct store *s, const git_oid *ids, size_t n);

/* Waits a random, growing while before retry @attempt; false once the
 * ~30 s budget started at @start_ms is spent. */
bool store_backoff(unsigned attempt, long long start_ms);
long long store_now_ms(void);

/* Writes a profile blob (store_blob.c); @compressed: its bytes are
 * compressed already, so git's zlib stream only stores them. */
int store_blob_write(struct store *s, const void *data, size_t len, bool compressed, git_oid *out);

/* The ledger listing cache (store_cache.c). store_cache_each() replays
 * the cached listing of ledger @head; *used false when there is none. */
struct buf;
int store_cache_each(struct store *s, const git_oid *head,
		     int (*fn)(const char *version, const struct store_entry *e, size_t n,
			       void *arg),
		     void *arg, bool *used);
void store_cache_start(struct buf *c, const git_oid *head);
void store_cache_add(struct buf *c, const char *version, const struct store_entry *e, size_t n);
void store_cache_write(struct store *s, const struct buf *c);
/* After an add or rm moved the ledger from @old to @new (root tree
 * @root), rewrites a cache that was valid for @old so that it is valid for
 * @new, changing only @version's record. Best effort, like the cache. */
void store_cache_advance(struct store *s, const git_oid *old, const git_oid *new_head,
			 git_tree *root, const char *version);

#endif
