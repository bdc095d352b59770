/*
 * Mutation rules: each changes an input in place, never past the length
 * limit, and draws every choice from the fuzzer's generator, so a seed
 * replays the same mutations. The rules follow Perun's three groups
 * (docs/cli/fuzz.md): binary ones (bit flips, byte changes, insertions,
 * deletions, duplicated, copied and swapped chunks), text ones (repeated,
 * doubled, split and swapped lines; repeated, varied, joined and sorted
 * words; runs of whitespace) and dictionary ones (--dict tokens inserted,
 * written over and repeated).
 */
#ifndef FUZZ_MUTATE_H
#define FUZZ_MUTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fz_rng;

/* An input being mutated: @cap is at least the limit the rules respect. */
struct fz_input {
	uint8_t *data;
	size_t len, cap;
};

/* Tokens of a --dict file (fz_dict_load), or of any other source. */
struct fz_dict {
	uint8_t **tok;
	size_t *len;
	size_t n;
};

struct fz_mut {
	struct fz_rng *rng;
	size_t max;		    /* the length no rule may pass */
	const struct fz_dict *dict; /* NULL: the dictionary rules do nothing */
	const uint8_t *donor;	    /* another input to splice from, or NULL */
	size_t donor_len;
};

enum fz_rule_group { FZ_BINARY, FZ_TEXT, FZ_DICT };

struct fz_rule {
	const char *name;
	enum fz_rule_group group;
	/* True when the input changed (false: nothing to do, e.g. no line). */
	bool (*fn)(struct fz_mut *m, struct fz_input *in);
	const char *summary;
};

/* Every rule, in a fixed order (a rule's index is its id in saved state). */
const struct fz_rule *fz_rules(size_t *n);
/* The index of the rule called @name, or -1. */
int fz_rule_find(const char *name);

/* An input of capacity @cap holding a copy of @data. */
void fz_input_init(struct fz_input *in, const uint8_t *data, size_t len, size_t cap);
void fz_input_set(struct fz_input *in, const uint8_t *data, size_t len);
void fz_input_release(struct fz_input *in);

/* Whether @data looks like text (nearly all printable or whitespace), as
 * Perun chooses its text rules. */
bool fz_is_text(const uint8_t *data, size_t len);

/*
 * The dictionary: AFL's format (`name="value"` or `"value"`, with \\, \"
 * and \xNN escapes; # comments) or, for a line with no quotes, the line
 * itself. ERR_PARSE names the line of a bad escape.
 */
int fz_dict_load(const char *path, struct fz_dict *d);
/* Parses a dictionary held in memory; @name for messages. */
int fz_dict_parse(const char *text, size_t len, const char *name, struct fz_dict *d);
void fz_dict_release(struct fz_dict *d);

/* ---- helpers the rule files share (mutate.c) ---- */

/* Inserts up to @n bytes of @src at @pos, as many as fit before the limit,
 * dropping the input's tail when it would grow past the limit; returns how
 * many. @src may point into @in. */
size_t fz_insert(struct fz_input *in, size_t max, size_t pos, const uint8_t *src, size_t n);
/* Removes @n bytes at @pos (clipped to the input). */
void fz_erase(struct fz_input *in, size_t pos, size_t n);
/* A length in [1, limit], mostly small: short changes are the useful ones. */
size_t fz_small_len(struct fz_rng *r, size_t limit);

#endif
