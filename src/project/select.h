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

#include "store/store.h"

struct buf;
struct profile;
struct project;

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

/*
 * Naming a profile the way Perun users do: "N@p" (the Nth pending profile
 * in .veles/jobs/), "N@i" (the Nth profile registered to a version, in
 * `status` order), a bare N (pending or indexed, per command), a path, a
 * file name in jobs/ or in the version, or a prefix of a profile's id.
 * The functions below that look in the store want project_open_store().
 */
enum ref_kind { REF_PENDING, REF_STORED, REF_FILE };
enum ref_default { REF_DEFAULT_PENDING, REF_DEFAULT_INDEX };

struct profile_ref {
	enum ref_kind kind;
	char *path;		  /* PENDING, FILE */
	char version[41];	  /* STORED */
	struct store_entry entry; /* STORED (owned copies) */
};

/* The .perf files in jobs/ in the order "N@p" counts in: by name, or by
 * format.sort_profiles_by (project/profile_order.h). */
int project_pending_list(const struct project *pr, char ***names, size_t *n);
void project_pending_free(char **names, size_t n);

/*
 * Perun's tag ranges: "A@p-B@p" (pending) and "A@i-B@i" (of @version)
 * become A@p, A+1@p, ... up to B or the last profile there is; a range
 * with A > B names none. Other specs are copied as they are, and so is a
 * range that is the name of an existing file. *@out (NULL-terminated,
 * free with project_pending_free) may hold fewer or more specs than @specs.
 */
int profile_ref_expand_ranges(const struct project *pr, const char *version, char **specs, size_t n,
			      char ***out, size_t *nout);

/* Resolves @spec; @version is the version to look in for stored ones. */
int profile_ref_resolve(struct project *pr, const char *spec, const char *version,
			enum ref_default def, struct profile_ref *out);
/*
 * What most commands do with a PROFILE argument: resolves @spec in version
 * @rev (NULL: HEAD, or no version yet) and loads it. On error @ref is
 * released and err_msg() says why (a bad @rev too).
 */
int profile_ref_open(struct project *pr, const char *spec, const char *rev, enum ref_default def,
		     struct profile_ref *ref, struct profile **out);
/* The profile's bytes as stored (file contents or blob). */
int profile_ref_read(struct project *pr, const struct profile_ref *ref, struct buf *raw);
int profile_ref_load(struct project *pr, const struct profile_ref *ref, struct profile **out);
/* A short name for messages: the file name or entry name. */
const char *profile_ref_name(const struct profile_ref *ref);
/* The full id of a registered profile; "" for a file or a pending one. */
const char *profile_ref_id(const struct profile_ref *ref);
/*
 * How outputs name a profile, into @b: a registered one by its short id,
 * then its name and version ("68bf66d5 prog-time-….perf @4ca8b42"), as
 * `status` lists it; a file or pending profile by its file name.
 */
void profile_ref_label(struct buf *b, const char *id, const char *name, const char *version);
void profile_ref_release(struct profile_ref *ref);

#endif
