/*
 * What the project's pages say about versions and profiles (api_profile.c,
 * api_view.c, api_diff.c): a registered profile found by its id, its
 * header as JSON, the branches and tags at a version, and the verdicts of
 * `check` against a version's parents.
 */
#ifndef SERVE_PROJ_PROFILE_H
#define SERVE_PROJ_PROFILE_H

#include <stdbool.h>

#include "store/store.h"

struct buf;
struct profile;
struct project;
struct vcs_version;
struct version_profiles;

/* A registered profile, loaded. */
struct proj_profile {
	struct store_entry e; /* owned copies */
	char version[41];     /* the version it is registered with */
	struct profile *p;
};

/*
 * Loads the profile whose id starts with @spec (4 to 40 hex digits):
 * ERR_PARSE when @spec is no id, ERR_NOTFOUND when no profile has it,
 * ERR_INVALID when several do.
 */
int proj_profile_open(struct project *pr, const char *spec, struct proj_profile *out);
void proj_profile_release(struct proj_profile *pp);

/*
 * The members describing profile @p (registered as @e with @version) of a
 * JSON object, without braces: id, short, name, version, type, config,
 * cmd, args, workload, collector, collector_params, postprocessors (names),
 * origin, when (from the name: "2026-11-22 10:00:00", or null).
 */
void proj_profile_json(const struct store_entry *e, const char *version, const struct profile *p,
		       struct buf *b);

/* The branches and tags pointing at @id, as a JSON array of {name, kind}. */
void proj_refs_json(struct project *pr, const char *id, struct buf *b);

/*
 * `check` of version @ver (its profiles loaded in @target) against its
 * parents (the first four), as `veles check REV` compares them: every
 * profile paired with its parents'
 * profile of the same configuration, compared by the methods
 * degradation.strategies names. Appends {"pairs": [...], "unmatched":
 * [...]} to @b.
 */
int proj_check_json(struct project *pr, const struct vcs_version *ver,
		    const struct version_profiles *target, struct buf *b);

/* Whether @s is a plausible version or profile id (4 to 40 hex digits). */
bool proj_hex_id(const char *s);

#endif
