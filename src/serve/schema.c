/* Migrations of the server's database (schema.h). Portable SQL: the same
 * statements run on SQLite and PostgreSQL (BIGINT, TEXT, no AUTOINCREMENT). */
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
};

int schema_latest(void)
{
	return (int)ARRAY_SIZE(migrations);
}

static int apply(struct db *db, int v)
{
	int ret = db_begin(db);

	if (ret < 0)
		return ret;
	ret = db_script(db, migrations[v]);
	if (ret == 0)
		ret = db_exec(db, "UPDATE schema_version SET version = ?", &DB_INT(v + 1), 1, NULL);
	if (ret < 0) {
		db_rollback(db);
		return err_prefix(ret, "cannot migrate the database to schema %d", v + 1);
	}
	return db_commit(db);
}

int schema_migrate(struct db *db, int *from)
{
	int64_t v;
	int ret;

	ret = db_script(db, "CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)");
	if (ret == 0)
		ret = db_query_int(db, "SELECT version FROM schema_version", NULL, 0, -1, &v);
	if (ret == 0 && v < 0) {
		ret = db_exec(db, "INSERT INTO schema_version (version) VALUES (0)", NULL, 0, NULL);
		v = 0;
	}
	if (ret < 0)
		return ret;
	*from = (int)v;
	if (v > schema_latest())
		return err_set(ERR_INVALID,
			       "the database is at schema %lld, from a newer veles (this one knows "
			       "up to %d)",
			       (long long)v, schema_latest());
	for (int i = (int)v; i < schema_latest() && ret == 0; i++)
		ret = apply(db, i);
	return ret;
}
