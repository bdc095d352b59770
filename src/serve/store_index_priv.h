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

/* Makes the verdicts due (newest first) until now() passes @until; *@left
 * gets how many remain due. */
int ix_verdicts_work(struct ix_run *x, double until, double (*now)(void), int64_t *left);

/* A double for the database: NaN and infinities as NULL. */
#define IX_REAL(x) (isfinite(x) ? DB_REAL(x) : (struct db_val){.type = DB_NULL})

#endif
