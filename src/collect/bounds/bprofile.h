/*
 * The bounds profile, in the seed's layout: a resource per loop ("local
 * bound") and per function ("total bound") with the uid source, function,
 * line and column, the bound, its class and "time" (Perun's "0.0").
 */
#ifndef COLLECT_BOUNDS_BPROFILE_H
#define COLLECT_BOUNDS_BPROFILE_H

struct profile;
struct func_bounds;

/* A new profile of type "bound", in "iterations". */
struct profile *bprofile_new(void);
/* The resources of one function of @source. */
void bprofile_add(struct profile *p, const char *source, const struct func_bounds *fb);

#endif
