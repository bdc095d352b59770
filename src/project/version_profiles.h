/*
 * The profiles registered to one version, loaded, with their
 * configuration keys (analyze/profile_config.h): how `check` pairs a
 * version's profiles with its parent's, and `log --perf` makes series.
 */
#ifndef PROJECT_VERSION_PROFILES_H
#define PROJECT_VERSION_PROFILES_H

#include <stddef.h>
#include <sys/types.h>

struct profile;
struct store;
struct store_entry;

struct version_profiles {
	struct store_entry *e;
	struct profile **p;
	char **key;
	size_t n;
};

int version_profiles_load(struct store *s, const char *version, struct version_profiles *v);
void version_profiles_free(struct version_profiles *v);
/* The last profile (by name: the newest) of @v with configuration @key, or -1. */
ssize_t version_profiles_find(const struct version_profiles *v, const char *key);

#endif
