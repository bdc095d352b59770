/*
 * Configuration: .veles/config.yml in the project and
 * ~/.config/veles/config.yml for the user, read with libyaml into dotted
 * keys ("collect.warn_dirty"; sequence items as "cmds.0"). Lookups take the
 * nearest file first. Edits change only the line of the key, so the
 * comments a user wrote survive `veles config set`.
 */
#ifndef CONFIG_CONFIG_H
#define CONFIG_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

struct config;

/* Loads @path; a missing file is an empty configuration. A syntax error is
 * "PATH:LINE:COL: problem". */
int config_load(const char *path, struct config **out);
/* Parses @text as if it were the file @name (an option's YAML value). */
int config_load_text(const char *name, const char *text, size_t len, struct config **out);
void config_free(struct config *c);

/* The scalar at @key, or NULL. */
const char *config_get(const struct config *c, const char *key);
/* Calls @fn for every scalar in file order. */
void config_each(const struct config *c, void (*fn)(const char *key, const char *value, void *arg),
		 void *arg);
/* Reads a boolean (true/false/yes/no/on/off/1/0); @def when unset or odd. */
bool config_bool(const struct config *c, const char *key, bool def);

/*
 * The schema. Known keys are those docs/config.md lists (a collector's or
 * postprocessor's params and a generator's fields are free-form here and
 * checked by whoever reads them).
 */
bool config_key_known(const char *key);
/* ERR_INVALID "FILE:LINE:COL: unknown key 'KEY'" for the first unknown key. */
int config_validate(const struct config *c);
/* True when @key is set, as a scalar or as a section with keys below it. */
bool config_has(const struct config *c, const char *key);
/* The file @c was read from. */
const char *config_name(const struct config *c);
/* ERR_INVALID with "FILE:LINE:COL: MESSAGE", at @key (or "FILE: MESSAGE"). */
int config_error_at(const struct config *c, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Sets @key to @value in the file at @path (creating it and any missing
 * parent mappings), atomically; the result must still parse. */
int config_set_file(const char *path, const char *key, const char *value);

/* Checks that @text parses; the error names @name. */
int config_parse_check(const char *name, const char *text, size_t len);

/* ~/.config/veles/config.yml (honours XDG_CONFIG_HOME); caller frees. */
char *config_user_path(void);

/* The commented file `veles init` writes. */
extern const char config_template[];

/* The configuration templates, Perun's: master, developer, user. */
extern const char *const config_template_names[];
bool config_template_known(const char *name);
/*
 * config.yml as template @name makes it (caller frees), or NULL when there
 * is no such template. The user template lists the programs and workloads
 * it finds under the project directory @root.
 */
char *config_template_text(const char *name, const char *root);

#endif
