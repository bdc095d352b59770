/* Durable writes of many profiles, two disk flushes per batch (batch.c). */
#ifndef RUN_BATCH_H
#define RUN_BATCH_H

#include <stdbool.h>

struct profile;
struct run_batch;

struct run_batch *run_batch_new(const char *dir);
/* Commits what is pending, then frees. */
void run_batch_free(struct run_batch *b);
/* Claims DIR/NAME.perf (see collect_claim_path) into *@path and writes @p
 * to a temporary file that the next commit renames into place. */
int run_batch_add(struct run_batch *b, const char *name, const struct profile *p, char **path);
/* True when the oldest pending profile has waited long enough. */
bool run_batch_due(const struct run_batch *b);
/* Makes every pending profile durable and puts it in place. */
int run_batch_commit(struct run_batch *b);

/* What a sweep did. */
struct run_sweep {
	unsigned recovered; /* whole profiles put in place */
	unsigned removed;   /* partial files deleted */
};
/* The temporary profiles in @dir that a killed writer left: whole ones go
 * in place under their name, the rest away (run_batch_new does it).
 * @out may be NULL. */
void run_batch_sweep(const char *dir, struct run_sweep *out);

#endif
