/*
 * A project's settings: .veles/config.yml first, then the user's
 * ~/.config/veles/config.yml (docs/config.md). Outside a project (@p NULL,
 * or without a .veles/) the user's file alone.
 */
#ifndef PROJECT_SETTINGS_H
#define PROJECT_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

struct check_strategies;
struct project;

/* A setting as text, nearest file first; caller frees; NULL when unset. */
char *project_setting(const struct project *p, const char *key);
/* A boolean setting, nearest file first, else @def. */
bool project_setting_bool(const struct project *p, const char *key, bool def);
/* A scalar or a list of scalars as a NULL-terminated array of copies
 * (free each, then the array); empty when unset. */
char **project_setting_list(const struct project *p, const char *key, size_t *n);
/* Loads both files and rejects unknown keys (one line naming the file). */
int project_settings_check(const struct project *p);

/* degradation.strategies and degradation.apply (analyze/strategy.h), after
 * project_settings_check(): ERR_INVALID for an unknown method or apply. */
int check_strategies_load(const struct project *p, struct check_strategies *s);

#endif
