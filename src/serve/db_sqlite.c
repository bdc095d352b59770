/* The SQLite backend of db.h: one connection, WAL, prepared statements kept. */
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "serve/db.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

enum { STMT_CACHE = 64 };

struct sq {
	sqlite3 *c;
	char *path;
	struct {
		char *sql;
		sqlite3_stmt *st;
	} cache[STMT_CACHE];
	size_t ncache;
};

static int sq_error(struct sq *s, const char *what)
{
	return err_set(ERR_IO, "%s: %s: %s", s->path, what, sqlite3_errmsg(s->c));
}

static int sq_open(const char *target, void **h)
{
	struct sq *s = xcalloc(1, sizeof(*s));
	char *dir = xstrdup(target), *slash = strrchr(dir, '/');
	int rc;

	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir_p(dir) < 0) {
			free(dir);
			free(s);
			return err_prefix(ERR_IO, "cannot make the database's folder");
		}
	}
	free(dir);
	s->path = xstrdup(target);
	rc = sqlite3_open_v2(target, &s->c,
			     SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
			     NULL);
	if (rc != SQLITE_OK) {
		int ret = err_set(ERR_IO, "cannot open %s: %s", target,
				  s->c ? sqlite3_errmsg(s->c) : sqlite3_errstr(rc));

		sqlite3_close(s->c);
		free(s->path);
		free(s);
		return ret;
	}
	/* Another server on the same file waits rather than failing. */
	sqlite3_busy_timeout(s->c, 5000);
	if (sqlite3_exec(s->c, "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON;", NULL, NULL,
			 NULL) != SQLITE_OK) {
		int ret = sq_error(s, "cannot set it up");

		sqlite3_close(s->c);
		free(s->path);
		free(s);
		return ret;
	}
	*h = s;
	return 0;
}

static void sq_close(void *h)
{
	struct sq *s = h;

	for (size_t i = 0; i < s->ncache; i++) {
		sqlite3_finalize(s->cache[i].st);
		free(s->cache[i].sql);
	}
	sqlite3_close(s->c);
	free(s->path);
	free(s);
}

/* The prepared statement for @sql, reset, its parameters bound. */
static int prepare(struct sq *s, const char *sql, const struct db_val *p, size_t np,
		   sqlite3_stmt **out)
{
	sqlite3_stmt *st = NULL;
	size_t i;

	for (i = 0; i < s->ncache; i++)
		if (strcmp(s->cache[i].sql, sql) == 0) {
			st = s->cache[i].st;
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			break;
		}
	if (!st) {
		if (sqlite3_prepare_v2(s->c, sql, -1, &st, NULL) != SQLITE_OK)
			return sq_error(s, "bad statement");
		if (s->ncache == STMT_CACHE) { /* full: the oldest goes */
			sqlite3_finalize(s->cache[0].st);
			free(s->cache[0].sql);
			memmove(&s->cache[0], &s->cache[1], (STMT_CACHE - 1) * sizeof(s->cache[0]));
			s->ncache--;
		}
		s->cache[s->ncache].sql = xstrdup(sql);
		s->cache[s->ncache++].st = st;
	}
	for (i = 0; i < np; i++) {
		int k = (int)i + 1, rc;

		switch (p[i].type) {
		case DB_INT:
			rc = sqlite3_bind_int64(st, k, p[i].i);
			break;
		case DB_REAL:
			rc = sqlite3_bind_double(st, k, p[i].d);
			break;
		case DB_TEXT:
			rc = sqlite3_bind_text(st, k, p[i].s, -1, SQLITE_TRANSIENT);
			break;
		default:
			rc = sqlite3_bind_null(st, k);
		}
		if (rc != SQLITE_OK)
			return sq_error(s, "cannot bind a value");
	}
	*out = st;
	return 0;
}

static int sq_exec(void *h, const char *sql, const struct db_val *p, size_t np, int64_t *changes)
{
	struct sq *s = h;
	sqlite3_stmt *st;
	int ret = prepare(s, sql, p, np, &st), rc;

	if (ret < 0)
		return ret;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	ret = rc == SQLITE_DONE ? 0 : sq_error(s, "cannot write");
	if (changes)
		*changes = sqlite3_changes64(s->c);
	sqlite3_reset(st);
	return ret;
}

static int sq_query(void *h, const char *sql, const struct db_val *p, size_t np, db_row_fn fn,
		    void *arg)
{
	struct sq *s = h;
	sqlite3_stmt *st;
	struct db_val v[32];
	int ret = prepare(s, sql, p, np, &st), rc;
	size_t n;

	if (ret < 0)
		return ret;
	n = (size_t)sqlite3_column_count(st);
	if (n > 32)
		n = 32;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (size_t i = 0; i < n; i++) {
			int t = sqlite3_column_type(st, (int)i);

			v[i] = (struct db_val){.type = DB_NULL};
			if (t == SQLITE_INTEGER)
				v[i] = DB_INT(sqlite3_column_int64(st, (int)i));
			else if (t == SQLITE_FLOAT)
				v[i] = DB_REAL(sqlite3_column_double(st, (int)i));
			else if (t == SQLITE_TEXT)
				v[i] = DB_TEXT((const char *)sqlite3_column_text(st, (int)i));
		}
		if ((ret = fn(arg, &(struct db_row){n, v})) != 0)
			break;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = sq_error(s, "cannot read");
	sqlite3_reset(st);
	return ret;
}

static int sq_script(void *h, const char *sql)
{
	struct sq *s = h;
	char *msg = NULL;

	if (sqlite3_exec(s->c, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int ret = err_set(ERR_IO, "%s: %s", s->path, msg ? msg : "cannot run a script");

		sqlite3_free(msg);
		return ret;
	}
	return 0;
}

/* One writer at a time: a claim's single statement needs no row lock, and
 * a migration's transaction none more. */
const struct db_backend db_sqlite = {
	.name = "sqlite",
	.open = sq_open,
	.close = sq_close,
	.exec = sq_exec,
	.query = sq_query,
	.script = sq_script,
};
