/* Migrations of the server's database (schema.h). One description for
 * both backends: portable SQL that runs as it is on SQLite and PostgreSQL
 * (BIGINT, TEXT, no AUTOINCREMENT, one column per ALTER TABLE); where the
 * dialects must differ, the backend gives its part (db.h). */
#include <stdio.h>

#include "serve/schema.h"
#include "util/common.h"
#include "util/error.h"

/* Migration i brings a database from version i to version i + 1. Never
 * edit one that shipped: add the next. */
static const char *const migrations[] = {
	/* 1: sessions, their runs (the screen state each was started from),
	 * and which events each run counted (for "most used first"). */
	"CREATE TABLE sessions ("
	"  id TEXT PRIMARY KEY,"
	"  title TEXT NOT NULL,"
	"  created BIGINT NOT NULL);"
	"CREATE TABLE runs ("
	"  id TEXT PRIMARY KEY,"
	"  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
	"  seq BIGINT NOT NULL,"
	"  created BIGINT NOT NULL,"
	"  started BIGINT,"
	"  ended BIGINT,"
	"  state TEXT NOT NULL,"
	"  tool TEXT NOT NULL,"
	"  events TEXT NOT NULL,"
	"  streaming BIGINT NOT NULL,"
	"  interval_ms BIGINT NOT NULL,"
	"  freq BIGINT NOT NULL,"
	"  callgraph BIGINT NOT NULL,"
	"  command TEXT NOT NULL,"
	"  env TEXT NOT NULL,"
	"  pid BIGINT NOT NULL,"
	"  tid BIGINT NOT NULL,"
	"  exit_status BIGINT,"
	"  error TEXT,"
	"  rows_count BIGINT NOT NULL DEFAULT 0,"
	"  samples BIGINT NOT NULL DEFAULT 0,"
	"  screen TEXT NOT NULL);"
	"CREATE INDEX runs_by_session ON runs(session_id, seq);"
	"CREATE INDEX runs_by_state ON runs(state, seq);"
	"CREATE TABLE run_events ("
	"  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  event TEXT NOT NULL,"
	"  PRIMARY KEY (run_id, event));",
	/* 2: the queue shared by several machines: who runs a run (the
	 * runner's name), until when its lease holds (renewed while it runs;
	 * an expired one puts the run back in the queue), and how many times
	 * it was claimed. */
	"ALTER TABLE runs ADD COLUMN runner TEXT;"
	"ALTER TABLE runs ADD COLUMN lease_until BIGINT;"
	"ALTER TABLE runs ADD COLUMN attempts BIGINT NOT NULL DEFAULT 0;"
	"CREATE INDEX runs_by_runner ON runs(runner, state);",
	/* 3: the index of the project's store (store_index.c): its versions
	 * in history order with their parents and the refs at them, each
	 * version's profiles, the series they make (configuration x
	 * location) with a point per version, and check's verdicts against
	 * the parent (verdict_due: to be made again). Points name their
	 * version by its seq: a first index appends them in order. ix_state says which
	 * ledger and refs it reflects. */
	"CREATE TABLE ix_state (name TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE ix_versions ("
	"  id TEXT PRIMARY KEY,"
	"  seq BIGINT NOT NULL,"
	"  parent TEXT,"
	"  parents TEXT NOT NULL,"
	"  label TEXT NOT NULL,"
	"  time BIGINT NOT NULL,"
	"  author TEXT NOT NULL,"
	"  summary TEXT NOT NULL,"
	"  profiles BIGINT NOT NULL DEFAULT 0,"
	"  sig TEXT NOT NULL DEFAULT '',"
	"  verdict_due BIGINT NOT NULL DEFAULT 0,"
	"  verdict TEXT,"
	"  change_rel DOUBLE PRECISION,"
	"  ci_low DOUBLE PRECISION,"
	"  ci_high DOUBLE PRECISION);"
	"CREATE INDEX ix_versions_seq ON ix_versions(seq);"
	"CREATE INDEX ix_versions_parent ON ix_versions(parent);"
	"CREATE INDEX ix_versions_due ON ix_versions(verdict_due, seq);"
	"CREATE TABLE ix_refs (name TEXT PRIMARY KEY, version TEXT NOT NULL, target TEXT NOT NULL);"
	"CREATE TABLE ix_profiles ("
	"  version TEXT NOT NULL,"
	"  type TEXT NOT NULL,"
	"  name TEXT NOT NULL,"
	"  blob TEXT NOT NULL,"
	"  config_key TEXT NOT NULL,"
	"  config TEXT NOT NULL,"
	"  PRIMARY KEY (version, type, name));"
	"CREATE TABLE ix_series ("
	"  id BIGINT PRIMARY KEY,"
	"  skey TEXT NOT NULL UNIQUE,"
	"  config_key TEXT NOT NULL,"
	"  config TEXT NOT NULL,"
	"  config_full TEXT NOT NULL,"
	"  location TEXT NOT NULL,"
	"  unit TEXT NOT NULL,"
	"  type TEXT NOT NULL,"
	"  cmd TEXT NOT NULL,"
	"  workload TEXT NOT NULL,"
	"  collector TEXT NOT NULL,"
	"  postprocessors TEXT NOT NULL,"
	"  points BIGINT NOT NULL DEFAULT 0);"
	"CREATE TABLE ix_points ("
	"  series BIGINT NOT NULL,"
	"  vseq BIGINT NOT NULL,"
	"  median DOUBLE PRECISION,"
	"  q1 DOUBLE PRECISION,"
	"  q3 DOUBLE PRECISION,"
	"  n BIGINT NOT NULL,"
	"  blob TEXT NOT NULL,"
	"  PRIMARY KEY (series, vseq));"
	"CREATE INDEX ix_points_vseq ON ix_points(vseq);"
	"CREATE TABLE ix_verdicts ("
	"  version TEXT NOT NULL,"
	"  config_key TEXT NOT NULL,"
	"  location TEXT NOT NULL,"
	"  method TEXT NOT NULL,"
	"  class TEXT NOT NULL,"
	"  change_rel DOUBLE PRECISION,"
	"  ci_low DOUBLE PRECISION,"
	"  ci_high DOUBLE PRECISION,"
	"  PRIMARY KEY (version, config_key, location, method));"
	"CREATE INDEX ix_verdicts_series ON ix_verdicts(config_key, location);",
};

int schema_latest(void)
{
	return (int)ARRAY_SIZE(migrations);
}

/* Within schema_migrate's transaction. */
static int apply(struct db *db, int v)
{
	int ret = db_script(db, migrations[v]);

	if (ret == 0)
		ret = db_exec(db, "UPDATE schema_version SET version = ?", &DB_INT(v + 1), 1, NULL);
	if (ret < 0)
		return err_prefix(ret, "cannot migrate the database to schema %d", v + 1);
	return 0;
}

/* The version the database is at, made 0 where it is new. */
static int version(struct db *db, int64_t *v)
{
	int ret = 0;

	if (*db_migrate_lock(db))
		ret = db_exec(db, db_migrate_lock(db), NULL, 0, NULL);
	if (ret == 0)
		ret = db_script(
			db, "CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)");
	if (ret == 0)
		ret = db_query_int(db, "SELECT version FROM schema_version", NULL, 0, -1, v);
	if (ret == 0 && *v < 0) {
		ret = db_exec(db, "INSERT INTO schema_version (version) VALUES (0)", NULL, 0, NULL);
		*v = 0;
	}
	return ret;
}

/* One transaction: a server that starts while another migrates waits for
 * it (the backend's migrate_lock), then finds nothing left to do. */
int schema_migrate(struct db *db, int *from)
{
	int64_t v = 0;
	int ret = db_begin(db);

	if (ret < 0)
		return ret;
	ret = version(db, &v);
	if (ret == 0 && v > schema_latest())
		ret = err_set(ERR_INVALID,
			      "the database is at schema %lld, from a newer veles (this one knows "
			      "up to %d)",
			      (long long)v, schema_latest());
	for (int i = (int)v; i < schema_latest() && ret == 0; i++)
		ret = apply(db, i);
	if (ret < 0) {
		db_rollback(db);
		return ret;
	}
	*from = (int)v;
	return db_commit(db);
}
