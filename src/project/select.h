/*
 * Naming profiles so that names stay put. N@i counts a version's profiles
 * in index order (by type, then name), so adding a profile shifts the
 * numbers after it; a profile's id (the hash of what the store keeps) never
 * changes. Every output names a registered profile by a short prefix of its
 * id, as git names commits, and any prefix of four hex digits or more that
 * is unique names it back, wherever N@i is accepted.
 */
#ifndef PROJECT_SELECT_H
#define PROJECT_SELECT_H

#include <stdbool.h>
#include <stddef.h>

struct store;
struct store_entry;

/* How many hex digits of a profile id the outputs show. */
#define PROFILE_SHORT_ID 8

/* The short id of profile blob @blob into @out; returns @out ("" for ""). */
const char *profile_short_id(const char *blob, char out[PROFILE_SHORT_ID + 1]);

/* Whether @spec can be a prefix of a profile id: 4 to 40 hex digits. */
bool profile_id_like(const char *spec);

/*
 * The registered profile whose id starts with @spec: among @version's
 * first (when not NULL), then among every version's. ERR_NOTFOUND when none
 * has it, ERR_INVALID when several do; the message says which. @where
 * gets the version it is registered with.
 */
int profile_find_id(struct store *s, const char *version, const char *spec, struct store_entry *out,
		    char where[41]);

/*
 * A digits-only @spec ("790561") is an index (N, as N@p or N@i) or an id
 * prefix. It is the id when it has four digits or more and a registered
 * profile's id starts with it: true then, with the entry in @out. False
 * when it names no id (read it as an index); an ambiguous prefix is a
 * negative ERR_INVALID.
 */
int profile_digits_are_id(struct store *s, const char *version, const char *spec,
			  struct store_entry *out, char where[41]);

/*
 * When @path names a file in the pending directory @jobs_dir (however it is
 * spelled: .veles/jobs/x.perf, an absolute path, through a symlink), its
 * name there, which the caller frees; NULL otherwise. Such a file is a
 * pending profile, whichever way it was named.
 */
char *profile_pending_name(const char *jobs_dir, const char *path);

#endif
