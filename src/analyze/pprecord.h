/*
 * A profile's "postprocessors" list, typed: the records of what ran on it,
 * {"name": NAME, "params": {KEY: VALUE, ...}} each (docs/cli/postprocess.md),
 * read once into structs. Everything that asks what a profile went
 * through reads them here: checks matching a rule's postprocessor, the
 * titles and keys of a configuration, the replay of a profile's recipe,
 * and postprocessing itself, which appends a record.
 */
#ifndef ANALYZE_PPRECORD_H
#define ANALYZE_PPRECORD_H

#include <stdbool.h>
#include <stddef.h>

struct buf;

enum pp_value_kind { PPV_NULL, PPV_FALSE, PPV_TRUE, PPV_NUMBER, PPV_STRING, PPV_LIST, PPV_MAP };

/* A parameter's value as JSON holds it. */
struct pp_value {
	enum pp_value_kind kind;
	char *text; /* PPV_STRING: the string; PPV_NUMBER: the number as written */
	double num; /* PPV_NUMBER */
	size_t n;   /* PPV_LIST, PPV_MAP: how many items */
	struct pp_value *items;
	char **keys; /* PPV_MAP: the items' keys */
};

struct pp_record {
	char *name;		/* "?" for a record without one */
	struct pp_value params; /* PPV_MAP (empty when the record has none) */
};

struct pp_records {
	struct pp_record *v;
	size_t n;
};

/*
 * Reads a "postprocessors" list (compact JSON or not). NULL, null and []
 * are no records. ERR_PARSE with a one-line message when @json is not a
 * list of objects.
 */
int pp_records_read(const char *json, struct pp_records *out);
void pp_records_free(struct pp_records *r);
/* Appends {"name": @name, "params": @params_json}; ERR_PARSE when
 * @params_json is not a JSON object. */
int pp_records_add(struct pp_records *r, const char *name, const char *params_json);
/* The list as compact JSON (caller frees). */
char *pp_records_json(const struct pp_records *r);

/* Whether a record is of postprocessor @name ('_' and '-' alike: Perun's
 * regression_analysis is our regression-analysis). */
bool pp_name_equal(const char *a, const char *b);
bool pp_records_ran(const struct pp_records *r, const char *name);
/* The value of parameter @key, or NULL. */
const struct pp_value *pp_record_param(const struct pp_record *rec, const char *key);

/*
 * The record as options that make it again: the name, then
 * {"repeat": 20, "list": [1, 2], "flag": true, "off": false} as
 * --repeat=20 --list=1 --list=2 --flag --no-off (underscores in keys
 * become hyphens; a null or nested value gives no option). A
 * NULL-terminated argv, *@argc its length; free with pp_argv_free().
 */
char **pp_record_argv(const struct pp_record *rec, int *argc);
/* The same for any map of @params after @name; a false value gives
 * --no-KEY with @negate, else no option (a collector's parameters: its
 * flags are off unless given). */
char **pp_params_argv(const char *name, const struct pp_value *params, bool negate, int *argc);
void pp_argv_free(char **argv);

/* A JSON object of parameters (collector_info.params), typed: NULL and
 * null are an empty map; ERR_PARSE when @json is no object. */
int pp_params_read(const char *json, struct pp_value *out);
void pp_value_free(struct pp_value *v);
/* The first value of @key in map @v, else anywhere inside it, depth first
 * (Perun's all_key_values_of: %UNIT.PARAM% finds nested parameters). */
const struct pp_value *pp_value_find(const struct pp_value *v, const char *key);

/* A value as a reader writes it: 3, full, [a, b], {k: v}. */
void pp_value_text(const struct pp_value *v, struct buf *out);
/* "(k=v, k2=[a, b])", or nothing when the record has no parameters. */
void pp_record_params_text(const struct pp_record *rec, struct buf *out);

#endif
