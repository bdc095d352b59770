/*
 * A profile's configuration: what it measured and how (command, arguments,
 * workload, collector, postprocessors). The key pairs a profile with its
 * baseline in `check` and makes one series in `log --perf`; the title
 * names a configuration for people.
 */
#ifndef ANALYZE_PROFILE_CONFIG_H
#define ANALYZE_PROFILE_CONFIG_H

struct profile;

/* "type cmd args (workload) collector [postprocessors as JSON]" (collector
 * parameters such as the repetition count do not count). Caller frees. */
char *profile_config_key(const struct profile *p);

/* "./prog 100 · time": the workload when the arguments do not already say
 * it, and any postprocessors. Caller frees. */
char *profile_config_title(const struct profile *p);

#endif
