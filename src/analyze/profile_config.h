/*
 * A profile's configuration: what it measured and how (command, arguments,
 * workload, collector, postprocessors). The key pairs a profile with its
 * baseline in `check` and makes one series in `log --perf`; the titles
 * name a configuration for people: briefly (postprocessors by name), or in
 * full (with their parameters) where two brief ones would read alike.
 */
#ifndef ANALYZE_PROFILE_CONFIG_H
#define ANALYZE_PROFILE_CONFIG_H

#include <stddef.h>

struct profile;

/* "type cmd args (workload) collector [postprocessors as JSON]" (collector
 * parameters such as the repetition count do not count). Caller frees. */
char *profile_config_key(const struct profile *p);

/* "./prog 100 · time + regression-analysis, normalizer": the workload
 * when the arguments do not already say it, and the postprocessors by
 * name. Caller frees. */
char *profile_config_title(const struct profile *p);

/* The title with each postprocessor's parameters:
 * "... + regression-analysis(method=full, regression_models=[linear,
 * quadratic])". Caller frees. */
char *profile_config_title_full(const struct profile *p);

/* The postprocessors the profile ran, by name, in order (NULL-terminated;
 * free each, then the array). */
char **profile_config_postprocessors(const struct profile *p, size_t *n);

#endif
