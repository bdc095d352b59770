/*
 * The profile store: which profiles belong to which code version.
 *
 * Kept in a git object database (see vcs.h for which one) under
 * refs/veles/ledger. Each profile is a blob holding its compact form (git
 * compresses it and names it by hash, so identical profiles are stored
 * once). The ledger commit's tree is
 *
 *   versions/<id[0:2]>/<id[2:40]>/<type>/<profile name>  -> profile blob
 *
 * and every add or rm is one new ledger commit whose message says what
 * changed. The ref moves by compare-and-swap, retried on conflict, so
 * concurrent adds all land and a crash leaves the ledger as it was.
 * docs/store.md describes the layout for other tools.
 */
#ifndef STORE_STORE_H
#define STORE_STORE_H

#include <stdbool.h>
#include <stddef.h>

struct buf;
struct vcs;

struct store;

struct store_entry {
	char *type;    /* the profile's header.type, its folder in the version tree */
	char *name;    /* file name, e.g. prog-time-100-2026-11-22-10-00-00.perf */
	char blob[41]; /* hex id of the profile blob */
};

/* One profile to register in a version. */
struct store_item {
	const char *type;
	const char *name;
	const void *data; /* the profile: its compact form, or JSON */
	size_t len;
	bool compressed; /* @data is compressed already (the compact form) */
};

int store_open(struct vcs *vcs, struct store **out);
void store_close(struct store *s);

/*
 * Lists the profiles of @version in index order (by type, then name);
 * that order is what "N@i" counts in. Caller frees with
 * store_entries_free(). An unknown version has no profiles.
 */
int store_list(struct store *s, const char *version, struct store_entry **out, size_t *n);
void store_entries_free(struct store_entry *e, size_t n);

/* Number of profiles per version for every version that has any;
 * calls @fn(version, entries, n, arg) for each, in no set order. */
int store_each_version(struct store *s,
		       int (*fn)(const char *version, const struct store_entry *e, size_t n,
				 void *arg),
		       void *arg);

/*
 * Registers @n profiles in @version in one ledger commit. A profile whose
 * content is already in that version is skipped and its slot in @added set
 * to false; a name taken by other content gets a "-2", "-3", ... suffix.
 * @added (may be NULL) and @blobs (may be NULL, 41 bytes each) report what
 * happened per item.
 */
int store_add(struct store *s, const char *version, const struct store_item *items, size_t n,
	      bool *added, char (*blobs)[41]);

/* Removes the named profiles (entry names as listed) from @version in one
 * ledger commit; ERR_NOTFOUND naming the first that is not there. */
int store_rm(struct store *s, const char *version, const struct store_entry *e, size_t n);

/* Reads a profile blob by full or abbreviated (>= 4 hex digits) id. */
int store_read(struct store *s, const char *blob, struct buf *out);

/* Resolves an abbreviated blob id among the profiles of @version (NULL:
 * all versions); ERR_NOTFOUND or ERR_INVALID (ambiguous) with a message.
 * @where (41 bytes, may be NULL) gets the version it was found in. */
int store_find_blob(struct store *s, const char *version, const char *prefix,
		    struct store_entry *out, char *where);

/*
 * Sharing: push and pull the refs under refs/veles/ to and from @remote (a remote name
 * of the project's repository, or a path or URL). Pull merges a ledger
 * that moved on both sides (union of the profiles, removals kept).
 * @summary receives a one-line account for the user.
 */
int store_push(struct store *s, const char *remote, struct buf *summary);
int store_pull(struct store *s, const char *remote, struct buf *summary);

#endif
