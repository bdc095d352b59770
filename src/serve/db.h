/*
 * The server's metadata database behind one small interface: open by URL,
 * execute, query row by row, transactions. Two backends: SQLite (one
 * machine) and PostgreSQL (a team's servers and runners on one database).
 * SQL given here is portable: `?` placeholders, no backend-only syntax;
 * where the dialects must differ the backend names its part (lock_rows,
 * migrate_lock). Every call is serialised by the handle's lock, so threads
 * may share one handle.
 */
#ifndef SERVE_DB_H
#define SERVE_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum db_type { DB_NULL, DB_INT, DB_REAL, DB_TEXT };

struct db_val {
	enum db_type type;
	int64_t i;
	double d;
	const char *s;
};

#define DB_INT(x) ((struct db_val){.type = DB_INT, .i = (int64_t)(x)})
#define DB_REAL(x) ((struct db_val){.type = DB_REAL, .d = (x)})
#define DB_TEXT(x) ((struct db_val){.type = (x) ? DB_TEXT : DB_NULL, .s = (x)})

/* One result row; its values live until the callback returns. */
struct db_row {
	size_t n;
	const struct db_val *v;
};

/* Called per row; a non-zero return stops the query and is returned. */
typedef int (*db_row_fn)(void *arg, const struct db_row *row);

struct db_backend {
	const char *name; /* "sqlite", "postgresql" */
	int (*open)(const char *target, void **h);
	void (*close)(void *h);
	/* One statement with parameters; *@changes gets the rows it changed. */
	int (*exec)(void *h, const char *sql, const struct db_val *p, size_t np, int64_t *changes);
	int (*query)(void *h, const char *sql, const struct db_val *p, size_t np, db_row_fn fn,
		     void *arg);
	/* Several statements without parameters (migrations). */
	int (*script)(void *h, const char *sql);
	/* Ends a SELECT that claims rows for this transaction, skipping those
	 * another holds (NULL: the backend's writers exclude each other). */
	const char *lock_rows;
	/* Run first in the migrations' transaction, so that two servers
	 * starting at once migrate one after the other (NULL: none needed). */
	const char *migrate_lock;
};

extern const struct db_backend db_sqlite, db_pg;

struct db;

/*
 * Opens @url: "sqlite:PATH" or a plain PATH (SQLite, created when missing,
 * its directory too), or "postgresql://..." / "postgres://..." (libpq's
 * connection URI: user, password, host or a socket folder, port, database
 * and parameters).
 */
int db_open(const char *url, struct db **out);
void db_close(struct db *db);
const char *db_backend_name(const struct db *db);
/* The backend's dialect parts above, "" for none. */
const char *db_lock_rows(const struct db *db);
const char *db_migrate_lock(const struct db *db);

/* Runs @sql; the number of rows changed into *@changes (may be NULL). */
int db_exec(struct db *db, const char *sql, const struct db_val *p, size_t np, int64_t *changes);
int db_query(struct db *db, const char *sql, const struct db_val *p, size_t np, db_row_fn fn,
	     void *arg);
int db_script(struct db *db, const char *sql);
/* The first column of the first row as an integer (@def without a row). */
int db_query_int(struct db *db, const char *sql, const struct db_val *p, size_t np, int64_t def,
		 int64_t *out);

/* A transaction holds the handle's lock from begin to commit or rollback:
 * other threads wait, this one may call on. */
int db_begin(struct db *db);
int db_commit(struct db *db);
void db_rollback(struct db *db);

#endif
