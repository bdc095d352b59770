/* Inside the store index (store_index.h): the parts' shared state. */
#ifndef SERVE_STORE_INDEX_PRIV_H
#define SERVE_STORE_INDEX_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/strategy.h"
#include "serve/store_index.h"
#include "util/strmap.h"

struct db;
struct project;

/* One refresh's work, inside its transaction. */
struct ix_run {
	struct db *db;
	struct project *p;
	int64_t max_seq;      /* the highest seq given so far */
	int64_t max_series;   /* the highest series id given so far */
	struct strmap series; /* skey -> index into series_id */
	int64_t *series_id;
	size_t series_cap;
	struct check_strategies strategies;
	struct check_opts opts;
	struct store_index_stats stats;
	bool recount; /* series' point counts made at the end */
};

/* store_index_versions.c: the version @id, added (seq after every other)
 * when the index lacks it. */
int ix_version_ensure(struct ix_run *x, const char *id);
/* The versions new to the refs, and the refs themselves. */
int ix_refs_update(struct ix_run *x);

/* store_index_profiles.c: reads again the profiles of the versions whose
 * profiles changed from ledger @old_hex ("" or unreadable: compare every
 * version) to the ledger now, with their verdicts and their children's. */
int ix_profiles_update(struct ix_run *x, const char *old_hex);

/* store_index_verdicts.c: a version whose verdict is due (verdict_due
 * was @mark when read). */
struct ix_due {
	char id[41], parent[41];
	int64_t mark;
};
struct ix_due_list {
	struct ix_due *v;
	size_t n, cap;
};
struct version_profiles;
/* The next few due, newest first (the project's lock not needed). */
int ix_due_batch(struct ix_run *x, struct ix_due_list *d);
int ix_due_count(struct ix_run *x, int64_t *n);
/* Loads the profiles of @d's version and its parent: the project's lock
 * held. */
int ix_verdict_load(struct ix_run *x, const struct ix_due *d, struct version_profiles *vp,
		    struct version_profiles *pp);
/* check of @vp against @pp for @d, in memory: without the lock. */
struct change_list;
struct ix_verdict {
	struct ix_due d;
	size_t n; /* @d's profiles: their configuration keys and changes */
	char **key;
	struct change_list *cl;
};
void ix_verdict_make(struct ix_run *x, const struct ix_due *d, const struct version_profiles *vp,
		     const struct version_profiles *pp, struct ix_verdict *out);
/* Writes @n verdicts in one transaction. */
int ix_verdicts_write(struct ix_run *x, const struct ix_verdict *v, size_t n);
void ix_verdict_free(struct ix_verdict *v);

/* A double for the database: NaN and infinities as NULL. */
#define IX_REAL(x) (isfinite(x) ? DB_REAL(x) : (struct db_val){.type = DB_NULL})

#endif
