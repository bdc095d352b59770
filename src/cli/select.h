/*
 * Profile selection for the commands: the library's (project/select.h)
 * over the command's project context.
 */
#ifndef CLI_SELECT_H
#define CLI_SELECT_H

#include <stddef.h>

#include "cli/cli.h"
#include "project/select.h"

/* The pending profiles' names, after putting back the whole ones a run
 * killed outright left as temporaries (run/batch.h), so that status shows
 * them without waiting for the next run. */
int pending_list(const struct cli_ctx *ctx, char ***names, size_t *n);

static inline void pending_free(char **names, size_t n)
{
	project_pending_free(names, n);
}

static inline int ref_expand_ranges(struct cli_ctx *ctx, const char *version, char **specs,
				    size_t n, char ***out, size_t *nout)
{
	return profile_ref_expand_ranges(&ctx->project, version, specs, n, out, nout);
}

static inline int ref_resolve(struct cli_ctx *ctx, const char *spec, const char *version,
			      enum ref_default def, struct profile_ref *out)
{
	return profile_ref_resolve(&ctx->project, spec, version, def, out);
}

static inline int ref_open(struct cli_ctx *ctx, const char *spec, const char *rev,
			   enum ref_default def, struct profile_ref *ref, struct profile **out)
{
	return profile_ref_open(&ctx->project, spec, rev, def, ref, out);
}

static inline int ref_read(struct cli_ctx *ctx, const struct profile_ref *ref, struct buf *raw)
{
	return profile_ref_read(&ctx->project, ref, raw);
}

static inline int ref_load(struct cli_ctx *ctx, const struct profile_ref *ref, struct profile **out)
{
	return profile_ref_load(&ctx->project, ref, out);
}

#define ref_name profile_ref_name
#define ref_id profile_ref_id
#define ref_label profile_ref_label
#define ref_release profile_ref_release

#endif
