/* What the files of libveles (include/veles.h) share. */
#ifndef API_API_H
#define API_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/collector.h"
#include "project/project.h"
#include "veles.h"

struct profile;
struct strpool;

struct table_col {
	char *name;
	int kind; /* enum veles_kind */
	void *data;
	size_t len, cap;
	uint8_t *absent; /* NULL, or len bytes */
	const uint32_t *index;
	bool owns; /* data and absent are the table's to free */
};

struct veles_table {
	size_t nrows;
	struct table_col *cols;
	size_t ncols;
	const struct strpool *pool; /* the strings of STR and JSON cells */
	struct strpool *own_pool;   /* == pool when the table made it */
};

/* A table whose text goes into @pool, or into a pool of its own (NULL). */
veles_table *table_new(const struct strpool *pool);
/* Adds an empty column the table owns; returns its index. */
size_t table_add(veles_table *t, const char *name, int kind);
/* Sets a cell of an owned column, growing it; rows past the last one set
 * by any column count in nrows. */
void table_set_i64(veles_table *t, size_t col, size_t row, int64_t v);
void table_set_f64(veles_table *t, size_t col, size_t row, double v);
/* NULL leaves the cell without a value. */
void table_set_str(veles_table *t, size_t col, size_t row, const char *s);
/* A string cell by its id in the table's pool. */
void table_set_id(veles_table *t, size_t col, size_t row, uint32_t id);
/* A column the table shows but does not own (a profile's). */
void table_add_view(veles_table *t, const struct table_col *c);
/* Makes every owned column nrows long (absent past its end). */
void table_finish(veles_table *t);

struct veles_project {
	struct project pr;
};

struct veles_profile {
	struct profile *p;
	char *name;
	char id[41], version[41];
	char *json[5];		 /* veles_profile_json()'s parts, made once */
	veles_table *resources;	 /* made once */
	uint8_t **absent_copies; /* masks made full length for the resources */
	size_t nabsent_copies;
};

/* Wraps a loaded profile (taking it) as a handle. */
veles_profile *api_profile_wrap(struct profile *p, const char *name, const char *id,
				const char *version);
/* Drops what was made from the profile once (its JSON parts, its
 * resources table): the profile changed. */
void api_profile_forget(veles_profile *h);
/* Sends @msg to the front end's log callback, if any. */
void api_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* An option's value: a number in (@lo, @hi), or true/false (1/0,
 * yes/no); ERR_INVALID naming @key otherwise. */
int api_parse_number(const char *key, const char *value, double lo, double hi, double *out);
int api_parse_flag(const char *key, const char *value, bool *out);
/* A collector's messages (collect_env.message): its summary, notes and
 * progress, to the log callback. */
void api_collect_message(void *arg, enum collect_msg kind, const char *text);

#endif
