/* Merging the per-size profiles of a generated workload into one. */
#ifndef RUN_MERGE_H
#define RUN_MERGE_H

struct profile;

/* Sets "structure-unit-size" to @size on every resource of @p. */
void run_profile_set_size(struct profile *p, long size);
/* Appends @src's resources (with their types) to @dst; also adds the
 * measured time (global.timestamp) of both. */
void run_profile_append(struct profile *dst, const struct profile *src);

#endif
