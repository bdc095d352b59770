/*
 * Naming a profile the way Perun users do: "N@p" (the Nth pending profile
 * in .veles/jobs/), "N@i" (the Nth profile registered to a version, in
 * `status` order), a bare N (pending or indexed, per command), a path, a
 * file name in jobs/ or in the version, or a prefix of a profile's id.
 */
#ifndef CLI_SELECT_H
#define CLI_SELECT_H

#include <stddef.h>

#include "store/store.h"

struct buf;
struct cli_ctx;
struct profile;

enum ref_kind { REF_PENDING, REF_STORED, REF_FILE };
enum ref_default { REF_DEFAULT_PENDING, REF_DEFAULT_INDEX };

struct profile_ref {
	enum ref_kind kind;
	char *path;		  /* PENDING, FILE */
	char version[41];	  /* STORED */
	struct store_entry entry; /* STORED (owned copies) */
};

/* The .perf files in jobs/, sorted by name: the order "N@p" counts in. */
int pending_list(const struct cli_ctx *ctx, char ***names, size_t *n);
void pending_free(char **names, size_t n);

/*
 * Perun's tag ranges: "A@p-B@p" (pending) and "A@i-B@i" (of @version)
 * become A@p, A+1@p, ... up to B or the last profile there is; a range
 * with A > B names none. Other specs are copied as they are, and so is a
 * range that is the name of an existing file. *@out (NULL-terminated,
 * free with pending_free) may hold fewer or more specs than @specs.
 */
int ref_expand_ranges(struct cli_ctx *ctx, const char *version, char **specs, size_t n, char ***out,
		      size_t *nout);

/* Resolves @spec; @version is the version to look in for stored ones. */
int ref_resolve(struct cli_ctx *ctx, const char *spec, const char *version, enum ref_default def,
		struct profile_ref *out);
/*
 * What most commands do with a PROFILE argument: resolves @spec in version
 * @rev (NULL: HEAD, or no version yet) and loads it. On error @ref is
 * released and err_msg() says why (a bad @rev too).
 */
int ref_open(struct cli_ctx *ctx, const char *spec, const char *rev, enum ref_default def,
	     struct profile_ref *ref, struct profile **out);
/* The profile's bytes as stored (file contents or blob). */
int ref_read(struct cli_ctx *ctx, const struct profile_ref *ref, struct buf *raw);
int ref_load(struct cli_ctx *ctx, const struct profile_ref *ref, struct profile **out);
/* A short name for messages: the file name or entry name. */
const char *ref_name(const struct profile_ref *ref);
/* The full id of a registered profile; "" for a file or a pending one. */
const char *ref_id(const struct profile_ref *ref);
/*
 * How outputs name a profile, into @b: a registered one by its short id,
 * then its name and version ("68bf66d5 prog-time-….perf @4ca8b42"), as
 * `status` lists it; a file or pending profile by its file name.
 */
void ref_label(struct buf *b, const char *id, const char *name, const char *version);
void ref_release(struct profile_ref *ref);

#endif
