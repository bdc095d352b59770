/*
 * The in-memory profile: metadata plus two column tables.
 *
 * Perun-compatible JSON splits each resource into "persistent" attributes
 * (uid, type, subtype, trace, ...) shared by many measurements, and
 * "collectable" values that vary per measurement (amount, order,
 * structure-unit-size, address, ...). We keep that split in memory:
 *
 *   types: one row per resource type (a distinct set of persistent
 *          attributes); column "#key" holds its key, e.g. "main#0".
 *   res:   one row per measurement; res_type[i] is its row in types;
 *          its columns are the collectable fields.
 *
 * So a 1,000,000-point trace profile costs about 20 bytes a point in
 * memory. See docs/profile-format.md for the file format.
 */
#ifndef PROFILE_PROFILE_H
#define PROFILE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buf;
struct strpool;

enum col_kind {
	COL_I64,  /* integers */
	COL_F64,  /* numbers with a fraction or exponent; I64 columns widen to this */
	COL_STR,  /* interned string id */
	COL_JSON, /* interned compact JSON text (objects, arrays, booleans) */
};

struct column {
	const char *name; /* interned in the profile's pool */
	enum col_kind kind;
	size_t cap;
	union {
		int64_t *i64;
		int32_t *i32; /* COL_I64 while every value fits (narrow) */
		double *f64;
		uint32_t *id;
	} v;
	/* COL_I64 stored as 32-bit cells: measurements (microseconds, sizes,
	 * counts) nearly always fit, and half the bytes keep a million-point
	 * profile smaller in memory than as JSON. A value that does not fit
	 * widens the column. Read integers with col_i64(). */
	bool narrow;
	uint8_t *absent;   /* NULL while every row has a value; else 1 = no value */
	size_t absent_cap; /* rows at or past absent_cap (and below len) have a value */
	size_t len;	   /* rows at or past len have no value: a column need not be as
			    * long as its table, so appending rows costs nothing.
			    * Use col_has() rather than reading absent/len. */
};

struct table {
	size_t nrows;
	size_t ncols;
	size_t cols_cap;
	struct column *cols;
};

/* One "key": "value" pair of header.units, or of a raw JSON member. */
struct kv {
	char *key;
	char *value; /* a string for units; compact JSON text for raw members */
};

enum profile_layout {
	LAYOUT_TYPED,  /* "resources" keyed by type + "resource_type_map" (canonical) */
	LAYOUT_GLOBAL, /* "global": {"timestamp", "resources": [...]} (the seed's time layout) */
};

struct profile {
	struct strpool *pool;
	enum profile_layout layout;

	char *origin; /* NULL when the profile has none */

	/* header */
	char *type; /* required */
	char *cmd;
	char *args;	     /* header.args or header.params */
	bool args_is_params; /* which of the two keys it came from */
	char *workload;
	struct kv *units;
	size_t nunits;
	struct kv *header_extra; /* other header members, raw JSON */
	size_t nheader_extra;

	/* collector_info */
	char *collector;	/* collector_info.name, or NULL */
	char *collector_params; /* compact JSON of collector_info.params, or NULL */

	char *postprocessors; /* compact JSON array; NULL means [] */
	char *models;	      /* compact JSON array; NULL means [] */

	bool has_timestamp; /* global.timestamp */
	double timestamp;

	struct kv *extra; /* unknown top-level members, raw JSON, kept on re-write */
	size_t nextra;

	struct table types;
	struct table res;
	uint32_t *res_type;
	size_t res_type_cap;

	struct profile_index *idx; /* private to src/profile: type lookups */
};

enum compression { COMP_NONE, COMP_ZLIB, COMP_ZSTD };

struct profile *profile_new(void);
void profile_free(struct profile *p);

/*
 * Loading. The input may be plain JSON, zlib (or gzip) or zstd compressed;
 * the reader detects which, and also skips the "profile TYPE SIZE\0" header
 * of objects from a Perun store. @name is used in error messages
 * ("NAME:LINE:COL: ..." for bad JSON, "NAME: missing key header.type" for
 * a missing key).
 */
int profile_load(const char *path, struct profile **out);
int profile_load_fd(int fd, const char *name, struct profile **out);
int profile_load_mem(const void *data, size_t len, const char *name, struct profile **out);

/*
 * The header.type Perun reads for a profile of type @type: "memory",
 * "mixed" and "time" are its own; every other type is written as "mixed",
 * with ours in header.veles_type, which the reader takes back.
 */
const char *profile_perun_type(const char *type);

/* Serialises in p->layout, compact or indented (2 spaces). */
void profile_write_json(const struct profile *p, struct buf *out, bool indent);
/* Same, streamed to @fd in 64 KiB chunks (no copy of the whole text). */
int profile_write_fd(const struct profile *p, int fd, bool indent);
/* Writes @path atomically (temp file, fsync, rename), compressed as asked. */
int profile_save(const struct profile *p, const char *path, enum compression comp);

/*
 * The compact form (docs/profile-format.md): the columns, each in the
 * encoding that suits it, zstd-compressed; what the store and .veles/jobs/
 * keep. profile_load*() read it as they read JSON.
 */
int profile_encode(const struct profile *p, struct buf *out);
/* Reads a compact profile from untrusted bytes; one error line naming
 * @name when they are damaged. */
int profile_decode(const uint8_t *data, size_t len, const char *name, struct profile **out);
bool profile_is_compact(const void *data, size_t len);
/* The same, the header members only (no resources): what `veles status`
 * lists, without decoding ten million rows. */
int profile_decode_header(const uint8_t *data, size_t len, const char *name, struct profile **out);
/* Reads and checks every column as profile_decode() does, keeping one at a
 * time: the header members of a compact profile known to load whole,
 * for `veles add` to store its bytes as they are. */
int profile_decode_check(const uint8_t *data, size_t len, const char *name, struct profile **out);
/*
 * The compact profile @data (checked by profile_decode_check()) with
 * @origin as its origin, into @out: the header section written anew, the
 * columns copied as they are, so the bytes are those profile_encode()
 * gives the same profile.
 */
int profile_compact_with_origin(const uint8_t *data, size_t len, const char *origin,
				struct buf *out);
bool profile_file_is_compact(const char *path);
/* A profile file's header members: of a compact file without its tables,
 * of JSON the whole profile. */
int profile_load_header(const char *path, struct profile **out);
/* Writes @path atomically in the compact form. */
int profile_save_compact(const struct profile *p, const char *path);
/* The most rows a compact profile's table may declare; a fuzzer lowers it
 * to keep a few crafted bytes from asking for gigabytes. */
extern size_t compact_max_rows;

/* Compression helpers, also used by the store. */
enum compression compression_detect(const void *data, size_t len);
int compression_decompress(const void *data, size_t len, struct buf *out);
int compression_compress(enum compression comp, const void *data, size_t len, struct buf *out);
enum compression compression_from_name(const char *name); /* "none", "zlib", "zstd"; -1 if bad */

/* ---- building (collectors, postprocessors) ---- */

/* A persistent attribute for profile_type_add(). Exactly one of the value
 * fields is used, chosen by @kind. */
struct attr {
	const char *name;
	enum col_kind kind;
	int64_t i;
	double f;
	const char *s; /* string for COL_STR, compact JSON text for COL_JSON */
};

/*
 * Finds or adds the resource type with exactly these persistent attributes
 * (one of them should be "uid") and returns its row in p->types. Its key is
 * "UID#N", N counting the types that share the uid.
 */
uint32_t profile_type_add(struct profile *p, const struct attr *attrs, size_t n);

/* Appends a measurement of @type and returns its row in p->res; its
 * collectable columns start absent. */
size_t profile_res_add(struct profile *p, uint32_t type);
/* Appends @n measurements of @type at once; returns the first's row. */
size_t profile_res_add_n(struct profile *p, uint32_t type, size_t n);

/*
 * Column access: find by name, or find-or-create. A found column of another
 * kind is converted so it can hold @kind (I64 -> F64, anything mixed with
 * text -> JSON), so the returned column's kind may differ from @kind.
 */
struct column *table_col(const struct table *t, const char *name);
struct column *table_col_get(struct profile *p, struct table *t, const char *name,
			     enum col_kind kind);

void col_set_i64(struct table *t, struct column *c, size_t row, int64_t v);
void col_set_f64(struct table *t, struct column *c, size_t row, double v);
void col_set_id(struct table *t, struct column *c, size_t row, uint32_t id);
bool col_has(const struct column *c, size_t row);
/* An integer cell of a COL_I64 column (narrow or not). */
static inline int64_t col_i64(const struct column *c, size_t row)
{
	return c->narrow ? c->v.i32[row] : c->v.i64[row];
}
/* Stores @n parsed integers at rows len..len+n-1 of a COL_I64 column,
 * widening it first when one does not fit in 32 bits. */
void col_append_i64(struct column *c, const int64_t *v, size_t n);
/*
 * Sets a cell of column @a->name (created when missing) from @a's value
 * whatever the column's kind: an I64 column widens to F64 for a fraction,
 * and a column mixing numbers, strings and JSON becomes COL_JSON.
 */
void table_set(struct profile *p, struct table *t, size_t row, const struct attr *a);
/* A numeric cell as a double; NaN when absent or not a number. */
double col_num(const struct column *c, size_t row);
/* A STR or JSON cell as text; NULL when absent or numeric. */
const char *col_text(const struct profile *p, const struct column *c, size_t row);

/*
 * Keeps the measurements whose @keep[row] is true, in their order, and
 * returns how many remain. Resource types stay in p->types even when no
 * measurement uses them any more (writers skip empty types in "resources").
 */
size_t profile_res_keep(struct profile *p, const bool *keep);

/* ---- queries ---- */

size_t profile_nres(const struct profile *p);
/* A resource's attribute, looked up in its collectable columns first and
 * then in its type's persistent ones; NULL when it has none. */
const struct column *profile_attr(const struct profile *p, size_t row, const char *name,
				  const struct table **where, size_t *at);
/*
 * The resource's uid as one line of text: strings as they are, a
 * {"source","function","line"} object as "source:function:line" (how
 * Perun prints memory and bounds uids).
 */
const char *profile_uid(const struct profile *p, size_t row, struct buf *scratch);
/* The resource's subtype ("real", "malloc", ...); NULL when it has none. */
const char *profile_subtype(const struct profile *p, size_t row);
/*
 * Appends how a group of resources is named to the user: its uid, and
 * " [subtype]" when models and plots tell its subtypes apart (the time
 * collector's real, user and sys share the command as uid).
 */
void profile_group_label(struct buf *b, const char *uid, const char *subtype);

/*
 * Whether two profiles measured the same kind of thing: the same type
 * (time, memory, ...) and the same command. ERR_INVALID, naming both (as
 * @aname and @bname) and how they differ, when not: comparing a memory
 * profile with a time one, or ./a with ./b, compares nothing alike.
 */
int profile_comparable(const struct profile *a, const char *aname, const struct profile *b,
		       const char *bname);
/*
 * The key that groups resources for models and plots, into @key: the uid,
 * then a NUL and the subtype when the resource has one (key->len counts
 * both). Returns key->data.
 */
const char *profile_group_key(const struct profile *p, size_t row, struct buf *key,
			      struct buf *scratch);
/* A column named @name of the resources' table, or else of the types'
 * table (looked up once, for a loop over rows); NULL when neither has it. */
const struct column *profile_col_any(const struct profile *p, const char *name);
/* Where @row's value in @c (from profile_col_any) is: @row itself, or the
 * row of its type. */
size_t profile_col_at(const struct profile *p, const struct column *c, size_t row);
double profile_amount(const struct profile *p, size_t row);
const char *profile_units(const struct profile *p, const char *key); /* NULL if absent */
/* The key ("uid#0") of resource type @type. */
const char *profile_type_key(const struct profile *p, uint32_t type);

#endif
