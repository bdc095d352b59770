/*
 * The order N@p and N@i count in: format.sort_profiles_by (Perun's key and
 * values, set by `veles status --sort-by`), or when it is unset ours:
 * pending profiles by name, a version's by type, then name.
 */
#ifndef CLI_PROFILE_ORDER_H
#define CLI_PROFILE_ORDER_H

#include <stddef.h>

struct cli_ctx;
struct store_entry;

/* Perun's ProfileInfo attributes, the values format.sort_profiles_by takes. */
extern const char *const order_keys[];

/* Whether @key is one of order_keys. */
int order_key_valid(const char *key);
/* The configured key (caller frees), or NULL for our own order; an
 * unknown one is warned about once and ignored, as Perun does. */
char *order_key_configured(const struct cli_ctx *ctx);

/* Reorders the file names of .veles/jobs/ (sorted by name) by the key. */
void order_pending(const struct cli_ctx *ctx, char **names, size_t n);
/* Reorders the profiles of one version (as store_list lists them). */
void order_stored(struct cli_ctx *ctx, struct store_entry *e, size_t n);

#endif
