/* The backend-independent part of the database interface (db.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "serve/db.h"
#include "util/error.h"
#include "util/xalloc.h"

struct db {
	const struct db_backend *be;
	void *h;
	pthread_mutex_t lock; /* recursive: a transaction's own calls nest */
};

int db_open(const char *url, struct db **out)
{
	const struct db_backend *be = &db_sqlite;
	const char *target = url;
	pthread_mutexattr_t a;
	struct db *db;
	int ret;

	if (strncmp(url, "sqlite:", 7) == 0) {
		target = url + 7;
	} else if (strncmp(url, "postgresql://", 13) == 0 || strncmp(url, "postgres://", 11) == 0) {
		be = &db_pg; /* libpq reads the whole URI */
	} else if (strstr(url, "://")) {
		return err_set(ERR_INVALID,
			       "--db %s: unknown database (use sqlite:PATH or postgresql://...)",
			       url);
	}
	if (!*target)
		return err_set(ERR_INVALID, "--db: no database path");
	db = xcalloc(1, sizeof(*db));
	db->be = be;
	if ((ret = be->open(target, &db->h)) < 0) {
		free(db);
		return ret;
	}
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&db->lock, &a);
	pthread_mutexattr_destroy(&a);
	*out = db;
	return 0;
}

void db_close(struct db *db)
{
	if (!db)
		return;
	db->be->close(db->h);
	pthread_mutex_destroy(&db->lock);
	free(db);
}

const char *db_backend_name(const struct db *db)
{
	return db->be->name;
}

const char *db_lock_rows(const struct db *db)
{
	return db->be->lock_rows ? db->be->lock_rows : "";
}

const char *db_migrate_lock(const struct db *db)
{
	return db->be->migrate_lock ? db->be->migrate_lock : "";
}

int db_exec(struct db *db, const char *sql, const struct db_val *p, size_t np, int64_t *changes)
{
	int64_t ch = 0;
	int ret;

	pthread_mutex_lock(&db->lock);
	ret = db->be->exec(db->h, sql, p, np, &ch);
	pthread_mutex_unlock(&db->lock);
	if (changes)
		*changes = ch;
	return ret;
}

int db_query(struct db *db, const char *sql, const struct db_val *p, size_t np, db_row_fn fn,
	     void *arg)
{
	int ret;

	pthread_mutex_lock(&db->lock);
	ret = db->be->query(db->h, sql, p, np, fn, arg);
	pthread_mutex_unlock(&db->lock);
	return ret;
}

int db_script(struct db *db, const char *sql)
{
	int ret;

	pthread_mutex_lock(&db->lock);
	ret = db->be->script(db->h, sql);
	pthread_mutex_unlock(&db->lock);
	return ret;
}

struct first_int {
	int64_t v;
	bool found;
};

static int take_first(void *arg, const struct db_row *row)
{
	struct first_int *f = arg;

	if (row->n && row->v[0].type != DB_NULL) {
		f->v = row->v[0].type == DB_REAL ? (int64_t)row->v[0].d : row->v[0].i;
		f->found = true;
	}
	return 1; /* one row is enough */
}

int db_query_int(struct db *db, const char *sql, const struct db_val *p, size_t np, int64_t def,
		 int64_t *out)
{
	struct first_int f = {def, false};
	int ret = db_query(db, sql, p, np, take_first, &f);

	if (ret < 0)
		return ret;
	*out = f.found ? f.v : def;
	return 0;
}

int db_begin(struct db *db)
{
	int ret;

	pthread_mutex_lock(&db->lock);
	ret = db->be->exec(db->h, "BEGIN", NULL, 0, NULL);
	if (ret < 0)
		pthread_mutex_unlock(&db->lock);
	return ret;
}

int db_commit(struct db *db)
{
	int ret = db->be->exec(db->h, "COMMIT", NULL, 0, NULL);

	if (ret < 0)
		db->be->exec(db->h, "ROLLBACK", NULL, 0, NULL);
	pthread_mutex_unlock(&db->lock);
	return ret;
}

void db_rollback(struct db *db)
{
	db->be->exec(db->h, "ROLLBACK", NULL, 0, NULL);
	pthread_mutex_unlock(&db->lock);
}
